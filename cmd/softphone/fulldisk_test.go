package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/softphone/softphone/internal/testpeer"
)

// startInTmpfs runs the phone in a private mount namespace (unshare -m)
// whose home is a small tmpfs, seeded with the settings of stage. The test
// reaches the tmpfs through /proc/PID/root (returned: the home as the test
// sees it).
func startInTmpfs(t *testing.T, stage, home string, size string) (*proc, string) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root for unshare -m and mount")
	}
	testpeer.Require(t, "unshare")
	script := `mount -t tmpfs -o size=` + size + `,mode=0700 tmpfs "$1" && cp "$2/settings.json" "$1/" && exec "$3" --home "$1" --no-browser`
	cmd := exec.Command("unshare", "-m", "--propagation", "private", "sh", "-c", script, "sh", home, stage, binary)
	cmd.Env = append(os.Environ(), noKeyring...)
	p := startProc(t, cmd)
	return p, filepath.Join("/proc", strconv.Itoa(cmd.Process.Pid), "root", home)
}

// cpuTicks is the process's user+system CPU time in clock ticks (1/100 s).
func cpuTicks(t *testing.T, pid int) int {
	t.Helper()
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
	u, _ := strconv.Atoi(f[11])
	s, _ := strconv.Atoi(f[12])
	return u + s
}

// fill writes a file in dir until the disk is full.
func fill(t *testing.T, dir string) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	chunk := make([]byte, 64<<10)
	for {
		if _, err := f.Write(chunk); err != nil {
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatal(err)
			}
			return
		}
	}
}

// pageHas logs in with the printed link (once) and tells whether the phone
// page holds text.
type pageClient struct {
	c      *http.Client
	origin string
}

func loginPage(t *testing.T, link string) *pageClient {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Timeout: 10 * time.Second}
	resp, err := c.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	u, _ := url.Parse(link)
	return &pageClient{c: c, origin: u.Scheme + "://" + u.Host}
}

func (pc *pageClient) has(t *testing.T, text string) bool {
	t.Helper()
	resp, err := pc.c.Get(pc.origin + "/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return bytes.Contains(b, []byte(text))
}

// TestFullDiskIsAState fills the phone's home (a 24 MiB tmpfs) during calls
// and frees it again (issue 14): while it is full the page says so, an idle
// phone spends about the CPU it spends on an empty disk and logs a few
// lines; once space is back every call is in the history and every event
// was sent once.
func TestFullDiskIsAState(t *testing.T) {
	stage, home := t.TempDir(), t.TempDir()
	r := newCrashRig(t, stage)
	// Every answered call is recorded: the recordings meet the full disk.
	b, _ := os.ReadFile(filepath.Join(stage, "settings.json"))
	var st map[string]any
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	st["recording"] = map[string]any{"mode": "all"}
	writeSettings(t, stage, st)
	p, seen := startInTmpfs(t, stage, home, "24m")
	r.home = seen
	if !testpeer.WaitFor(15*time.Second, func() bool { var cs []any; return testpeer.GetJSON(r.api+"/calls", &cs) == nil }) {
		t.Fatalf("API not up:\n%s", p.Output())
	}
	page := loginPage(t, p.URL)
	const banner = "The disk is full: history and recordings cannot be saved"
	pid := p.cmd.Process.Pid
	window := 5 * time.Second // each CPU measurement

	c0 := cpuTicks(t, pid)
	time.Sleep(window) // idle on an empty disk: the baseline
	idleEmpty := cpuTicks(t, pid) - c0

	// Four calls before the disk fills (two answered and recording), four
	// more while it is full (two answered); then all end.
	sippA := r.sipp(t, 4)
	idsA := r.waitCalls(t, p, 4, "ringing-in")
	for _, id := range idsA[:2] {
		r.action(t, id, "answer")
	}
	r.waitCalls(t, p, 2, "connected")
	fill(t, seen)
	sippB := r.sipp(t, 4)
	var idsB []string
	if !testpeer.WaitFor(20*time.Second, func() bool {
		idsB = idsB[:0]
		for id, st := range r.calls() {
			if st == "ringing-in" && id != idsA[2] && id != idsA[3] {
				idsB = append(idsB, id)
			}
		}
		return len(idsB) == 4
	}) {
		t.Fatalf("second burst: %v\n%s", r.calls(), p.Output())
	}
	for _, id := range idsB[:2] {
		r.action(t, id, "answer")
	}
	r.waitCalls(t, p, 4, "connected")
	ids := append(append([]string{}, idsA...), idsB...)
	if !testpeer.WaitFor(10*time.Second, func() bool {
		return strings.Contains(p.Output(), "recording stopped: its file cannot be written")
	}) {
		t.Errorf("the recordings did not say they stopped:\n%s", p.Output())
	}
	for _, id := range ids {
		r.action(t, id, "hangup")
	}
	if !testpeer.WaitFor(10*time.Second, func() bool { return len(r.calls()) == 0 }) {
		t.Fatalf("calls left: %v", r.calls())
	}
	_ = sippA.Process.Kill()
	_ = sippB.Process.Kill()
	if !testpeer.WaitFor(10*time.Second, func() bool { return page.has(t, banner) }) {
		t.Fatalf("no banner while the disk is full\n%s", p.Output())
	}

	lines0, c1 := strings.Count(p.Output(), "\n"), cpuTicks(t, pid)
	time.Sleep(window) // idle on a full disk, with writes waiting
	idleFull, logged := cpuTicks(t, pid)-c1, strings.Count(p.Output(), "\n")-lines0
	t.Logf("figures: CPU over %v idle: %d ms on an empty disk, %d ms on a full one (writes waiting); %d log lines",
		window, idleEmpty*10, idleFull*10, logged)
	if idleFull > 2*idleEmpty+50 { // 0.5 s of slack: the machine is shared
		t.Errorf("a full disk costs %d ticks in %v, an empty one %d", idleFull, window, idleEmpty)
	}
	if logged > 10 {
		t.Errorf("%d log lines in %v on a full disk:\n%s", logged, window, p.Output())
	}
	var hist []map[string]any
	_ = testpeer.GetJSON(r.api+"/history?limit=100", &hist)
	t.Logf("history entries while full: %d", len(hist))

	if err := os.Remove(filepath.Join(seen, "filler")); err != nil {
		t.Fatal(err)
	}
	inHistory := func() int {
		var hist []map[string]any
		if testpeer.GetJSON(r.api+"/history?limit=100", &hist) != nil {
			return 0
		}
		n := 0
		for _, h := range hist {
			for _, id := range ids {
				if h["call_id"] == id && h["reason"] != "" && h["reason"] != "none" {
					n++
				}
			}
		}
		return n
	}
	plans := map[string]*callPlan{}
	for _, id := range ids {
		plans[id] = &callPlan{}
	}
	if !testpeer.WaitFor(60*time.Second, func() bool {
		return inHistory() == len(ids) && countEnded(r.hooks.snapshot(), plans) == len(ids)
	}) {
		t.Fatalf("after freeing: %d of %d calls in the history, %d with call-ended\n%s",
			inHistory(), len(ids), countEnded(r.hooks.snapshot(), plans), p.Output())
	}
	if !testpeer.WaitFor(15*time.Second, func() bool { return !page.has(t, banner) }) {
		t.Error("banner still up after space came back")
	}
	per := map[string]int{}
	hits := r.hooks.snapshot()
	for _, h := range hits {
		per[h.delivery]++
	}
	most := 0
	for _, n := range per {
		most = max(most, n)
	}
	t.Logf("figures: %d events, %d requests (at most %d for one event)", len(per), len(hits), most)
	if most > 1 {
		t.Errorf("an event was sent %d times with the receiver up", most)
	}
	if st, err := os.Stat(filepath.Join(seen, "softphone.db-wal")); err == nil && st.Size() > 4<<20+1<<20 {
		t.Errorf("WAL holds %d bytes after the disk was freed", st.Size())
	}
	p.stop(t)
	if os.Getenv("SHOW_PHONE_LOG") != "" {
		t.Log(p.Output())
	}
}
