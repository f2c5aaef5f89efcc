// Command uas measures the phone as a SIP UAS and its memory (issue 20):
// incoming calls at a steady rate, answered at once (sip.auto_answer, no
// tab), each ACKed and ended with a BYE right away, and the phone's CPU per
// call over them; its RSS (anonymous and file-backed, /proc/<pid>/status)
// at moments of an idle stretch before the calls (-idle, -idle-at), right
// after the last one and 5 s and 40 s later, beside baresip's idle RSS in
// the same run. With -also a second binary (main's) idles beside it, read
// at the same moments, and takes its calls after the first's. With -exe
// each idle reading says which of the executable is mapped (per section,
// the text per package), to see what an idle phone runs again.
//
// Run it inside a network namespace (it only uses 127.0.0.1):
//
//	unshare -n sh -c 'ip link set lo up; go run ./bench/uas [-calls 250] [-rate 50] [-bin softphone] [-also main/softphone] [-idle 300s -idle-at 60s,150s] [-exe]'
//
// It prints figures; it asserts nothing about them.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/softphone/softphone/bench/internal/rig"
	"github.com/softphone/softphone/internal/testpeer"
)

func main() {
	calls := flag.Int("calls", 250, "incoming calls")
	rate := flag.Int("rate", 50, "calls a second")
	prof := flag.String("pprof", "", "save a CPU profile of the phone over the calls here (its heap after them at .heap, 40 s later at .late.heap with the runtime figures at .late.txt, at idle at .idle.heap and .idle.txt, its goroutines at .idle.goroutines; the binary at .bin); also print what SQLite's allocator holds at idle and 40 s after the calls")
	idleFor := flag.Duration("idle", 3*time.Second, "how long the phones stay idle before the calls (their RSS is read at 3 s, at the -idle-at points and at the end of it)")
	idleAt := flag.String("idle-at", "", "more moments of the idle stretch, counted from when the phones listen, to read RSS at (comma-separated durations, e.g. 60s,150s,300s; -idle is raised to the last)")
	exe := flag.Bool("exe", false, "at each idle reading also say which of the phone's executable is mapped: per ELF section and the text per package (/proc/<pid>/pagemap)")
	prebuilt := flag.String("bin", "", "run this softphone binary instead of building ./cmd/softphone (to measure two trees in one stretch; -pprof needs it built with the pprof overlay)")
	also := flag.String("also", "", "a second softphone binary (main's, say) started beside the first: idle at the same moments, then its calls after the first's")
	flag.Parse()
	points, err := idlePoints(*idleFor, *idleAt)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	tb := &rig.TB{}
	defer tb.Close()
	fmt.Printf("machine: %s\n", rig.Machine())

	dir := tb.TempDir()
	bin := *prebuilt
	if bin == "" {
		bin = rig.BuildPhone(tb, dir, *prof != "")
	}
	// The anchor: baresip registered nowhere, idle.
	bob := testpeer.StartBaresip(tb, testpeer.BaresipOpts{User: "bob"})
	bobPID, err := rig.FindProcess("baresip", "-f", bob.Dir)
	if err != nil {
		tb.Fatal(err)
	}
	phones := []*phone{startPhone(tb, "phone", bin, *prof != "")}
	if *also != "" {
		phones = append(phones, startPhone(tb, "also", *also, false))
	}
	for _, p := range phones {
		p.waitListening(tb)
	}
	// Idle: what the phones hold when nothing happens, and what they touch
	// again over time (the failed registration's retries, the runtime's
	// forced collection every 2 minutes).
	t0 := time.Now()
	for _, at := range points {
		time.Sleep(time.Until(t0.Add(at)))
		line := fmt.Sprintf("idle RSS at %v (%s, load %s):", at, time.Now().UTC().Format("15:04:05"), loadAvg())
		for _, p := range phones {
			p.idle = rss(tb, p.pid)
			line += fmt.Sprintf(" %s %s |", p.name, p.idle)
		}
		fmt.Printf("%s baresip %s\n", line, rss(tb, bobPID))
		if *exe {
			for _, p := range phones {
				r, err := rig.ExeResidentOf(p.pid, p.bin)
				if err != nil {
					fmt.Printf("  %s executable: %v\n", p.name, err)
					continue
				}
				fmt.Printf("  %s executable mapped: %s\n", p.name, r)
			}
		}
	}
	if *prof != "" { // the runtime's figures at idle, beside those 40 s after the calls
		if err := rig.FetchProfile(phones[0].pprofAddr, "heap?debug=1", *prof+".idle.txt"); err != nil {
			tb.Fatal(err)
		}
		if err := rig.FetchProfile(phones[0].pprofAddr, "heap", *prof+".idle.heap"); err != nil {
			tb.Fatal(err)
		}
		if err := rig.FetchProfile(phones[0].pprofAddr, "goroutine?debug=1", *prof+".idle.goroutines"); err != nil {
			tb.Fatal(err)
		}
		fmt.Printf("phone at idle: %s", libcStat(tb, phones[0].pprofAddr))
	}
	for i, p := range phones {
		if i > 0 {
			p.idle = rss(tb, p.pid)
			fmt.Printf("%s: idle RSS before its calls %s\n", p.name, p.idle)
		}
		p.calls(tb, *calls, *rate, *prof)
	}
}

// idlePoints are the moments of the idle stretch RSS is read at: 3 s,
// those of list and the end of the stretch, in order.
func idlePoints(end time.Duration, list string) ([]time.Duration, error) {
	pts := []time.Duration{3 * time.Second, end}
	for _, s := range strings.Split(list, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return nil, fmt.Errorf("-idle-at: %q is not a duration", s)
		}
		pts = append(pts, d)
	}
	slices.Sort(pts)
	return slices.Compact(pts), nil
}

func loadAvg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// phone is one softphone process of the run.
type phone struct {
	name, bin string
	pid       int
	sipPort   int
	pprofAddr string
	idle      mem // its RSS at the last idle reading
}

// startPhone starts bin with a home of its own: SIP on a port of its own,
// auto-answer, no tab needed, and one account whose registrar is a closed
// port (SIP listens while an account is enabled; its REGISTER times out
// after 32 s and is retried, as for a phone whose server is down).
func startPhone(tb *rig.TB, name, bin string, pprof bool) *phone {
	home := filepath.Join(tb.TempDir(), "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		tb.Fatal(err)
	}
	p := &phone{name: name, bin: bin, sipPort: freeUDP(tb)}
	settings := map[string]any{
		"sip":      map[string]any{"listen": fmt.Sprintf("127.0.0.1:%d", p.sipPort), "auto_answer": true},
		"audio":    map[string]any{"require_tab": false},
		"accounts": []map[string]any{{"username": "alice", "domain": "127.0.0.1", "port": freeUDP(tb), "enabled": true}},
	}
	b, _ := json.Marshal(settings)
	if err := os.WriteFile(filepath.Join(home, "settings.json"), b, 0o600); err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command(bin, "--home", home, "--no-browser", "--log-level", "error")
	cmd.Env = append(os.Environ(), "DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent")
	if pprof {
		p.pprofAddr = fmt.Sprintf("127.0.0.1:%d", freeTCP(tb))
		cmd.Env = append(cmd.Env, "SOFTPHONE_PPROF="+p.pprofAddr)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	sc := bufio.NewScanner(stdout)
	for sc.Scan() && !strings.Contains(sc.Text(), "Phone page:") {
	}
	go func() {
		for sc.Scan() {
		}
	}()
	p.pid = cmd.Process.Pid
	return p
}

func (p *phone) waitListening(tb *rig.TB) {
	if !testpeer.WaitFor(10*time.Second, func() bool { return listening(p.sipPort) }) {
		tb.Fatalf("%s does not listen on udp %d", p.name, p.sipPort)
	}
}

// calls places the calls on p and prints its CPU per call and its RSS
// after them beside its idle RSS.
func (p *phone) calls(tb *rig.TB, calls, rate int, prof string) {
	pid := p.pid
	conn, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close()
	dst := &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: p.sipPort}
	me := conn.LocalAddr().(*net.UDPAddr).Port
	// The first call after idle: what the phone maps again or reads
	// from disk (page faults: proc(5) minflt, majflt) and how long it takes.
	f0 := faults(tb, pid)
	firstInvite, firstCall := oneCallTimed(tb, conn, dst, me, -1)
	f1 := faults(tb, pid)
	fmt.Printf("%s: first call after idle: INVITE to 200 %v, whole call %v, page faults %d minor, %d major\n",
		p.name, firstInvite.Round(time.Microsecond), firstCall.Round(time.Microsecond), f1[0]-f0[0], f1[1]-f0[1])
	for i := 1; i < 10; i++ { // warm-up
		oneCall(tb, conn, dst, me, -1-i)
	}
	time.Sleep(time.Second)
	profDone := make(chan error, 1)
	if prof != "" {
		secs := max(1, calls/rate)
		go func() { profDone <- rig.FetchProfile(p.pprofAddr, fmt.Sprintf("profile?seconds=%d", secs), prof) }()
	}
	c0, w0 := cpu(tb, pid), time.Now()
	tick := time.NewTicker(time.Second / time.Duration(rate))
	var worst time.Duration
	for i := 0; i < calls; i++ {
		<-tick.C
		if d := oneCall(tb, conn, dst, me, i); d > worst {
			worst = d
		}
	}
	tick.Stop()
	c1, wall := cpu(tb, pid), time.Since(w0)
	fmt.Printf("%s: %d incoming calls at %.1f/s (INVITE, 200 auto-answer, ACK, BYE): CPU %.2f ms per call (%.1f%% of a core), slowest call %v   target <= 1.5 ms per call\n",
		p.name, calls, float64(calls)/wall.Seconds(), (c1-c0).Seconds()*1000/float64(calls), 100*(c1-c0).Seconds()/wall.Seconds(), worst.Round(time.Microsecond))
	if prof != "" {
		if err := <-profDone; err != nil {
			tb.Fatal(err)
		}
		if err := rig.FetchProfile(p.pprofAddr, "heap?gc=1", prof+".heap"); err != nil {
			tb.Fatal(err)
		}
		if b, err := os.ReadFile(p.bin); err == nil {
			_ = os.WriteFile(prof+".bin", b, 0o755)
		}
	}
	after := rss(tb, pid)
	time.Sleep(5 * time.Second)
	settled := rss(tb, pid)
	// SIP transactions linger 32 s after their last message (RFC 3261
	// 17.2.2, 64*T1): what the calls left is read again once they are gone.
	time.Sleep(35 * time.Second)
	late := rss(tb, pid)
	fmt.Printf("%s: RSS after the calls: %s, 5 s later %s, 40 s later %s (idle before: %s; %+.1f MB, anon %+.1f; load %s)   target: back within 2 MB of idle\n",
		p.name, after, settled, late, p.idle, float64(late.total()-p.idle.total())/1024, float64(late.anon-p.idle.anon)/1024, loadAvg())
	if prof != "" {
		// What is left 40 s later: the runtime's own figures as they are
		// (no collection first), then the live heap.
		if err := rig.FetchProfile(p.pprofAddr, "heap?debug=1", prof+".late.txt"); err != nil {
			tb.Fatal(err)
		}
		if err := rig.FetchProfile(p.pprofAddr, "heap", prof+".late.heap"); err != nil {
			tb.Fatal(err)
		}
		fmt.Printf("%s 40 s after the calls: %s", p.name, libcStat(tb, p.pprofAddr))
	}
}

// libcStat is what SQLite's allocator (modernc.org/memory) holds in the
// phone built with -pprof (rig.BuildPhone).
func libcStat(tb *rig.TB, addr string) string {
	resp, err := http.Get("http://" + addr + "/debug/libc")
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// mem is a process's resident memory, split as proc(5) does.
type mem struct{ anon, file, shmem int }

func (m mem) total() int { return m.anon + m.file + m.shmem }

func (m mem) String() string {
	return fmt.Sprintf("%.1f MB (anon %.1f, file %.1f, shmem %.1f)",
		float64(m.anon+m.file+m.shmem)/1024, float64(m.anon)/1024, float64(m.file)/1024, float64(m.shmem)/1024)
}

func rss(tb *rig.TB, pid int) mem {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		tb.Fatal(err)
	}
	var m mem
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		n, _ := strconv.Atoi(f[1])
		switch f[0] {
		case "RssAnon:":
			m.anon = n
		case "RssFile:":
			m.file = n
		case "RssShmem:":
			m.shmem = n
		}
	}
	return m
}

func cpu(tb *rig.TB, pid int) time.Duration {
	c, err := rig.CPUOf(pid)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// faults reads the page faults of process pid so far: minor, major
// (proc(5) /proc/pid/stat fields 10 and 12).
func faults(tb *rig.TB, pid int) [2]int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		tb.Fatal(err)
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:]) // from field 3 (state) on
	minflt, _ := strconv.Atoi(f[7])
	majflt, _ := strconv.Atoi(f[9])
	return [2]int{minflt, majflt}
}

// oneCall places one call on the phone and ends it: INVITE, the 200 of the
// auto-answer, ACK, BYE and its 200. It returns how long that took.
func oneCall(tb *rig.TB, conn *net.UDPConn, dst *net.UDPAddr, me, i int) time.Duration {
	_, d := oneCallTimed(tb, conn, dst, me, i)
	return d
}

// oneCallTimed is oneCall that also returns the time from the INVITE to its
// 200.
func oneCallTimed(tb *rig.TB, conn *net.UDPConn, dst *net.UDPAddr, me, i int) (time.Duration, time.Duration) {
	callID := fmt.Sprintf("uas-%d-%d@bench", time.Now().UnixNano(), i)
	sdp := "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 40000 RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\n"
	head := func(method, branch string, cseq int) string {
		return fmt.Sprintf("%s sip:alice@127.0.0.1:%d SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:%d;branch=z9hG4bK%s;rport\r\n"+
			"From: <sip:bench@127.0.0.1>;tag=t%d\r\nCall-ID: %s\r\nMax-Forwards: 70\r\nCSeq: %d %s\r\n",
			method, dst.Port, me, branch, i, callID, cseq, method)
	}
	start := time.Now()
	inv := head("INVITE", fmt.Sprintf("inv%d", i), 1) + fmt.Sprintf("To: <sip:alice@127.0.0.1>\r\nContact: <sip:bench@127.0.0.1:%d>\r\n"+
		"Content-Type: application/sdp\r\nContent-Length: %d\r\n\r\n%s", me, len(sdp), sdp)
	send(tb, conn, dst, inv)
	ok := read(tb, conn, "SIP/2.0 200", callID)
	answered := time.Since(start)
	to := header(ok, "to")
	send(tb, conn, dst, head("ACK", fmt.Sprintf("ack%d", i), 1)+to+"\r\nContent-Length: 0\r\n\r\n")
	send(tb, conn, dst, head("BYE", fmt.Sprintf("bye%d", i), 2)+to+"\r\nContent-Length: 0\r\n\r\n")
	read(tb, conn, "SIP/2.0 200", "2 BYE")
	return answered, time.Since(start)
}

func send(tb *rig.TB, conn *net.UDPConn, dst *net.UDPAddr, msg string) {
	if _, err := conn.WriteToUDP([]byte(msg), dst); err != nil {
		tb.Fatal(err)
	}
}

// read returns the next message that starts with prefix and holds want,
// skipping others (provisional answers, retransmissions).
func read(tb *rig.TB, conn *net.UDPConn, prefix, want string) string {
	buf := make([]byte, 65535)
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	for {
		n, _, err := conn.ReadFromUDP(buf)
		if err != nil {
			tb.Fatalf("waiting for %q: %v", prefix, err)
		}
		s := string(buf[:n])
		if strings.HasPrefix(s, prefix) && strings.Contains(s, want) {
			return s
		}
	}
}

func header(msg, name string) string {
	for _, l := range strings.Split(msg, "\r\n") {
		if strings.HasPrefix(strings.ToLower(l), name+":") {
			return l
		}
	}
	return ""
}

// listening reports whether a UDP socket is bound to 127.0.0.1:port.
func listening(port int) bool {
	b, _ := os.ReadFile("/proc/net/udp")
	return strings.Contains(string(b), fmt.Sprintf(" 0100007F:%04X ", port))
}

func freeTCP(tb *rig.TB) int {
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func freeUDP(tb *rig.TB) int {
	c, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).Port
}
