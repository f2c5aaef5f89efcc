package main

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/softphone/softphone/internal/testpeer"
)

// writeHugeJournal writes n lines of the outbox journal (the store's line
// format: d delivery id, c call, e event, f the 17 webhook fields, n next
// try, t created) as a long outage with a dead receiver leaves it, plus a
// torn last line.
func writeHugeJournal(t *testing.T, path string, n int) int64 {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	now := time.Now().UnixNano()
	for i := range n {
		call := fmt.Sprintf("c%07d-8c0e-4f1a-9d7a-2f6b5e4d3c21", i/3)
		fmt.Fprintf(w, `{"d":"d%09d-3b52-4c1e-9d7a-2f6b5e4d3c21","c":"%s","e":"call-state-changed","f":{"account":"alice@pbx.example.com",`+
			`"account_id":"8c0e7f1a-3b52-4c1e-9d7a-2f6b5e4d3c21","answered_by":"no","callstart_ts":"1790000000000",`+
			`"callstate_ts":"1790000000000","dialed":"","direction":"in","duration_s":"0","event":"call-state-changed",`+
			`"event_ts":"1790000000000","id":"%s","name":"Ada Lovelace","number":"+4930123456","reason":"none",`+
			`"seance_id":"%s","state":"active","uri":"sip:+4930123456@pbx.example.com"},"n":%d,"t":%d}`+"\n",
			i, call, call, call, now, now)
	}
	fmt.Fprint(w, `{"d":"torn`)
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	st, _ := f.Stat()
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return st.Size()
}

// TestHugeJournalStart starts the real binary on a home whose webhook
// journal holds 400,000 events (issue 14: such a journal kept the phone from
// starting, 30 s and "context deadline exceeded", on every start). The
// phone starts; the outbox holds its capacity, the rest is counted in
// webhooks_dropped_total, and the journal is empty. The time to the page
// line is the figure of the issue (a test logs it, asserts nothing of it).
func TestHugeJournalStart(t *testing.T) {
	home := t.TempDir()
	apiPort := testpeer.FreeTCPPort(t)
	api := "http://127.0.0.1:" + strconv.Itoa(apiPort)
	writeSettings(t, home, map[string]any{
		"api":      map[string]any{"enabled": true, "port": apiPort},
		"webhooks": map[string]any{"enabled": false, "url": "http://127.0.0.1:9/hook"},
		"sip":      map[string]any{"listen": "127.0.0.1:" + strconv.Itoa(testpeer.FreeSIPPort(t))},
	})
	jnl := filepath.Join(home, "softphone.db-outbox.jnl")
	const lines = 400_000
	size := writeHugeJournal(t, jnl, lines)
	start := time.Now()
	p := startPhone(t, home, noKeyring)
	took := time.Since(start)
	t.Logf("figures: start to the page line with a %d-line journal (%d MB): %v", lines, size>>20, took.Round(time.Millisecond))
	// The API listener opens after the page line: wait for it to answer.
	if !testpeer.WaitFor(15*time.Second, func() bool {
		res, err := http.Get(api + "/metrics")
		if err == nil {
			res.Body.Close()
		}
		return err == nil
	}) {
		t.Fatalf("the API never answered\n%s", p.Output())
	}
	var dropped float64
	if !testpeer.WaitFor(15*time.Second, func() bool {
		c := (&crashRig{api: api}).counters(t)
		dropped = c["webhooks_dropped_total"]
		return dropped == lines-10000
	}) {
		t.Fatalf("webhooks_dropped_total %v, want %d\n%s", dropped, lines-10000, p.Output())
	}
	if st, err := os.Stat(jnl); err != nil || st.Size() != 0 {
		t.Fatalf("journal after the start: %v %v", st, err)
	}
	p.stop(t)
	// The next start has nothing to replay.
	start = time.Now()
	p = startPhone(t, home, noKeyring)
	t.Logf("figures: the next start: %v", time.Since(start).Round(time.Millisecond))
	p.stop(t)
}
