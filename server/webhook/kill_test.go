package webhook

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/softphone/softphone/sipua"
)

// proc is a child process whose stdout lines arrive on a channel.
type proc struct {
	cmd   *exec.Cmd
	lines chan string
}

func startProc(t *testing.T, env []string, name string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{cmd: cmd, lines: make(chan string, 1024)}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			p.lines <- sc.Text()
		}
		close(p.lines)
	}()
	t.Cleanup(p.kill)
	return p
}

func (p *proc) kill() {
	if p.cmd.ProcessState == nil {
		_ = p.cmd.Process.Kill() // SIGKILL
		_ = p.cmd.Wait()
	}
}

// next returns the next line that starts with prefix.
func (p *proc) next(t *testing.T, prefix string) string {
	t.Helper()
	timeout := time.After(60 * time.Second)
	for {
		select {
		case l, ok := <-p.lines:
			if !ok {
				t.Fatalf("%s ended before %q", p.cmd.Path, prefix)
			}
			if strings.HasPrefix(l, prefix) {
				return l
			}
		case <-timeout:
			t.Fatalf("%s: no %q", p.cmd.Path, prefix)
		}
	}
}

type seen struct{ Method, Delivery, ID, Event, CallstateTS string }

func (p *proc) request(t *testing.T) seen {
	t.Helper()
	var m map[string]string
	if err := json.Unmarshal([]byte(p.next(t, "{")), &m); err != nil {
		t.Fatal(err)
	}
	return seen{m["method"], m["delivery"], m["id"], m["event"], m["callstate_ts"]}
}

// TestKillHelper is the phone in TestKilledWhileQueued: it queues 5 calls of
// 4 events for a receiver that never answers, says "queued", and waits to be
// killed with -9.
func TestKillHelper(t *testing.T) {
	dbPath, url := os.Getenv("WEBHOOK_KILL_DB"), os.Getenv("WEBHOOK_KILL_URL")
	if dbPath == "" {
		t.Skip("run by TestKilledWhileQueued")
	}
	db := openDB(t, filepath.Dir(dbPath))
	s := New(Config{Settings: settingsFor(url, "POST"), DB: db, Poll: 10 * time.Millisecond})
	bus := sipua.NewBus()
	s.Consume(bus.Subscribe(DefaultBuffer, false))
	go func() { _ = s.Serve(context.Background()) }()
	fourEventCalls(bus, 5)
	eventually(t, "queued", func() bool { n, _ := db.OutboxLen(context.Background()); return n == 20 })
	fmt.Println("queued")
	select {}
}

func TestKilledWhileQueued(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "receiver")
	build := exec.Command("go", "build", "-o", bin, "./testdata/receiver")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		t.Fatalf("build receiver: %v", err)
	}
	stalled := startProc(t, nil, bin, "-stall")
	addr := strings.TrimPrefix(stalled.next(t, "listening "), "listening ")
	dbPath := filepath.Join(dir, "softphone.db")
	phone := startProc(t, []string{"WEBHOOK_KILL_DB=" + dbPath, "WEBHOOK_KILL_URL=http://" + addr + "/hook"},
		os.Args[0], "-test.run=^TestKillHelper$", "-test.v")
	inflight := map[string]seen{}
	for len(inflight) < 5 { // the head of each call is in flight, stalled
		s := stalled.request(t)
		inflight[s.ID] = s
	}
	phone.next(t, "queued")
	phone.kill()
	stalled.kill()

	rc := startProc(t, nil, bin)
	addr = strings.TrimPrefix(rc.next(t, "listening "), "listening ")
	db := openDB(t, dir)
	cnt := &counters{}
	s := New(Config{Settings: settingsFor("http://"+addr+"/hook", "POST"), DB: db, Metrics: cnt, Poll: 10 * time.Millisecond})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = s.Serve(ctx); close(done) }()
	defer func() { cancel(); <-done }()
	order := map[string][]string{}
	triples := map[string]bool{}
	for i := 0; i < 20; i++ {
		got := rc.request(t)
		order[got.ID] = append(order[got.ID], got.Event)
		triples[got.ID+got.Event+got.CallstateTS] = true
		if len(order[got.ID]) == 1 && got.Delivery != inflight[got.ID].Delivery {
			t.Errorf("call %s: delivery id %s after restart, %s before", got.ID, got.Delivery, inflight[got.ID].Delivery)
		}
	}
	want := "call-started call-state-changed call-state-changed call-ended"
	for id := range inflight {
		if strings.Join(order[id], " ") != want {
			t.Errorf("call %s: %v", id, order[id])
		}
	}
	if len(order) != 5 || len(triples) != 20 {
		t.Errorf("%d calls, %d distinct events", len(order), len(triples))
	}
	eventually(t, "outbox empty", func() bool { n, _ := db.OutboxLen(context.Background()); return n == 0 })
}
