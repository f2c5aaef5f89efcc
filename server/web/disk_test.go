package web

import (
	"bufio"
	"fmt"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/softphone/softphone/store"
)

// TestDiskFullBanner: while the store says the disk is full, every page
// carries the banner (English and German), and an open page's live stream
// gets it and loses it the moment the state changes.
func TestDiskFullBanner(t *testing.T) {
	r, db := dbRig(t)
	const en = "The disk is full: history and recordings cannot be saved"
	if _, body := r.do("GET", "/", nil, nil); strings.Contains(body, en) {
		t.Fatal("banner shown before the disk is full")
	}

	req, _ := http.NewRequest("GET", r.origin+"/events", nil)
	req.AddCookie(r.cookie)
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	lines := make(chan string, 256)
	go func() {
		sc := bufio.NewScanner(res.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	// nextDisk returns the data of the next "disk" event.
	nextDisk := func() string {
		t.Helper()
		inDisk, data := false, ""
		timeout := time.After(10 * time.Second)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatal("stream ended")
				}
				switch {
				case l == "event: disk":
					inDisk, data = true, ""
				case inDisk && strings.HasPrefix(l, "data: "):
					data += l[len("data: "):]
				case inDisk && l == "":
					return data
				}
			case <-timeout:
				t.Fatal("no disk event")
			}
		}
	}
	if d := nextDisk(); strings.Contains(d, en) {
		t.Fatalf("first disk event shows the banner: %q", d)
	}
	db.NoteWrite(fmt.Errorf("write history: %w", syscall.ENOSPC))
	if d := nextDisk(); !strings.Contains(d, en) || !strings.Contains(d, `role="alert"`) {
		t.Fatalf("disk event after a full write: %q", d)
	}
	if _, body := r.do("GET", "/history", nil, nil); !strings.Contains(body, en) {
		t.Fatal("no banner on the history page while the disk is full")
	}
	if _, err := r.st.Update(func(s *store.Settings) error { s.Appearance.Language = "de"; return nil }); err != nil {
		t.Fatal(err)
	}
	if _, body := r.do("GET", "/", nil, nil); !strings.Contains(body, "Der Datenträger ist voll") {
		t.Fatal("no German banner")
	}
	db.NoteWrite(nil)
	if d := nextDisk(); strings.Contains(d, "voll") || strings.Contains(d, en) {
		t.Fatalf("banner still sent after a write succeeded: %q", d)
	}
}
