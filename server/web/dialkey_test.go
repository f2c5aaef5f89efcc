package web

import (
	"errors"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func dialRaw(t *testing.T, port int) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp4", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// `softphone dial` proves the local user with the home's key file and dials
// at once; without the key, with a wrong one, or from a browser it does not.
func TestDialWithTheHomesKey(t *testing.T) {
	r := newRig(t, nil)
	home := r.srv.cfg.Home
	fi, err := os.Stat(filepath.Join(home, dialKeyFile))
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v %v", fi, err)
	}
	id, err := DialNow(home, "tel:+49-30-1234")
	if err != nil || id != "c-new" {
		t.Fatalf("DialNow: %q %v", id, err)
	}
	if cmds := r.phone.commands(); !slices.Equal(cmds, []string{"dial +49301234 "}) {
		t.Fatalf("commands %v", cmds)
	}
	form := strings.NewReader(url.Values{"uri": {"tel:666"}}.Encode())
	ct := "application/x-www-form-urlencoded"
	// A wrong key.
	res, _ := r.do("POST", "/dial", form, map[string]string{"Content-Type": ct, dialKeyHeader: strings.Repeat("0", 64)})
	if res.StatusCode != 403 {
		t.Fatalf("wrong key: %d", res.StatusCode)
	}
	// The right key from a browser page (it sends Origin).
	key, _ := os.ReadFile(filepath.Join(home, dialKeyFile))
	form = strings.NewReader(url.Values{"uri": {"tel:666"}}.Encode())
	res, _ = r.do("POST", "/dial", form, map[string]string{"Content-Type": ct, dialKeyHeader: strings.TrimSpace(string(key)), "Origin": "https://evil.example"})
	if res.StatusCode != 403 {
		t.Fatalf("key with Origin: %d", res.StatusCode)
	}
	// No key: the session routes, and without a session the short page.
	form = strings.NewReader(url.Values{"uri": {"tel:666"}}.Encode())
	res, _ = r.do("POST", "/dial", form, map[string]string{"Content-Type": ct})
	if res.StatusCode != 401 {
		t.Fatalf("no key: %d", res.StatusCode)
	}
	if cmds := r.phone.commands(); len(cmds) != 1 {
		t.Fatalf("dialled without the key: %v", cmds)
	}
	// Without the key file (another user, or no phone running) nothing is dialled.
	if err := os.Remove(filepath.Join(home, dialKeyFile)); err != nil {
		t.Fatal(err)
	}
	if _, err := DialNow(home, "tel:666"); err == nil {
		t.Fatal("dialled without the key file")
	}
	// A key file that does not match the running phone's.
	if err := os.WriteFile(filepath.Join(home, dialKeyFile), []byte(strings.Repeat("ab", 32)), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := DialNow(home, "tel:666"); !errors.Is(err, ErrDialRefused) {
		t.Fatalf("stale key: %v", err)
	}
	if cmds := r.phone.commands(); len(cmds) != 1 {
		t.Fatalf("dialled with a stale key: %v", cmds)
	}
}
