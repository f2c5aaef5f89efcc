// Command stall measures what a stalled webhook receiver costs a call
// (issue 5): it runs the real phone three times side by side: one with
// webhooks pointed at a receiver that accepts connections and never answers,
// one with webhooks off, and a control with webhooks off too. It sends them
// the same incoming INVITEs (cancelled after the 180) in rotating order and
// prints INVITE-to-180 percentiles, each phone's CPU per call, and the ratios
// stalled/none and control/none: the control's ratio is what two identical
// phones differ by in this run, the noise floor to read the first against.
// Run it inside `unshare -n` (it only uses 127.0.0.1):
//
//	go run ./bench/stall -calls 5000
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

func main() {
	calls := flag.Int("calls", 5000, "incoming calls per phone")
	flag.Parse()
	dir, err := os.MkdirTemp("", "softphone-stall-")
	must(err)
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "softphone")
	out, err := exec.Command("go", "build", "-o", bin, "./cmd/softphone").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "build: %v\n%s", err, out)
		os.Exit(1)
	}
	// The stalled receiver: accepts, reads, never answers.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	must(err)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { _, _ = bufio.NewReader(c).ReadString(0) }()
		}
	}()
	// The phones run at once and take turns, so load from elsewhere on the
	// machine falls on all alike.
	phones := []*phone{
		start(bin, filepath.Join(dir, "stalled"), "http://"+ln.Addr().String()+"/hook"),
		start(bin, filepath.Join(dir, "none"), ""),
		start(bin, filepath.Join(dir, "control"), ""),
	}
	for _, p := range phones {
		defer p.stop()
	}
	const warmUp = 20
	for i := 0; i < *calls+warmUp; i++ {
		if i == warmUp {
			for _, p := range phones {
				p.cpu0 = p.cpu()
			}
		}
		for k := range phones {
			p := phones[(i+k)%len(phones)] // each phone goes first, second and last in turn
			d := p.call(i)
			if i >= warmUp {
				p.lat = append(p.lat, d)
			}
		}
	}
	fmt.Printf("INVITE to 180, %d calls each:\n", *calls)
	for _, p := range phones {
		slices.Sort(p.lat)
		fmt.Printf("  %-8s p50 %-8v p90 %-8v p99 %-8v max %-8v  CPU per call %v\n", p.name,
			pct(p.lat, 50), pct(p.lat, 90), pct(p.lat, 99), pct(p.lat, 100), (p.cpu()-p.cpu0)/time.Duration(*calls))
	}
	ratio := func(a, b *phone, q int) float64 { return float64(pct(a.lat, q)) / float64(pct(b.lat, q)) }
	st, none, ctl := phones[0], phones[1], phones[2]
	fmt.Printf("  ratio stalled/none: p50 %.2f  p99 %.2f   target < 1.1\n", ratio(st, none, 50), ratio(st, none, 99))
	fmt.Printf("  ratio control/none: p50 %.2f  p99 %.2f   (two identical phones: the noise floor)\n", ratio(ctl, none, 50), ratio(ctl, none, 99))
}

// phone is one running phone and the UDP socket that calls it.
type phone struct {
	name string
	lat  []time.Duration
	cpu0 time.Duration
	cmd  *exec.Cmd
	conn *net.UDPConn
	dst  *net.UDPAddr
	me   int
}

func (p *phone) call(i int) time.Duration { return oneCall(p.conn, p.dst, p.me, i) }

// cpu is the CPU time (user and system) the phone's process has used.
func (p *phone) cpu() time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.cmd.Process.Pid))
	must(err)
	// Fields after the command name (which may hold spaces) in brackets:
	// utime and stime are the 12th and 13th (proc(5) fields 14 and 15).
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	var ut, st int64
	fmt.Sscan(f[11], &ut)
	fmt.Sscan(f[12], &st)
	return time.Duration(ut+st) * time.Second / 100 // USER_HZ is 100 on Linux
}

func (p *phone) stop() {
	p.conn.Close()
	_ = p.cmd.Process.Kill()
	_ = p.cmd.Wait()
}

// start runs the phone with the given webhook address ("" = webhooks off).
func start(bin, home, hook string) *phone {
	must(os.MkdirAll(home, 0o700))
	sipPort := freeUDP()
	settings := map[string]any{
		"sip":      map[string]any{"listen": fmt.Sprintf("127.0.0.1:%d", sipPort)},
		"webhooks": map[string]any{"enabled": hook != "", "url": hook},
		// SIP listens while an account is enabled; this one's registrar is
		// a closed port, so it fails and backs off quietly.
		"accounts": []map[string]any{{"username": "alice", "domain": "127.0.0.1", "port": freeUDP(), "enabled": true}},
	}
	b, _ := json.Marshal(settings)
	must(os.WriteFile(filepath.Join(home, "settings.json"), b, 0o600))
	cmd := exec.Command(bin, "--home", home, "--no-browser", "--log-level", "error")
	cmd.Env = append(os.Environ(), "DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent")
	if f := os.Getenv("STALL_STDERR"); f != "" {
		ef, _ := os.Create(f + filepath.Base(home))
		cmd.Stderr = ef
	}
	stdout, err := cmd.StdoutPipe()
	must(err)
	must(cmd.Start())
	sc := bufio.NewScanner(stdout)
	for sc.Scan() && !strings.Contains(sc.Text(), "Phone page:") {
	}
	for deadline := time.Now().Add(10 * time.Second); !listening(sipPort); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			must(fmt.Errorf("the phone does not listen on udp %d", sipPort))
		}
	}
	conn, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	must(err)
	return &phone{name: filepath.Base(home), cmd: cmd, conn: conn, dst: &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: sipPort},
		me: conn.LocalAddr().(*net.UDPAddr).Port}
}

func oneCall(conn *net.UDPConn, dst *net.UDPAddr, me, i int) time.Duration {
	callID, branch := fmt.Sprintf("stall-%d-%d@bench", time.Now().UnixNano(), i), fmt.Sprintf("z9hG4bKstall%d", i)
	sdp := "v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 40000 RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\n"
	head := func(method string) string {
		return fmt.Sprintf("%s sip:alice@127.0.0.1:%d SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:%d;branch=%s;rport\r\n"+
			"From: <sip:bench@127.0.0.1>;tag=t%d\r\nCall-ID: %s\r\nMax-Forwards: 70\r\n", method, dst.Port, me, branch, i, callID)
	}
	inv := head("INVITE") + fmt.Sprintf("To: <sip:alice@127.0.0.1>\r\nCSeq: 1 INVITE\r\nContact: <sip:bench@127.0.0.1:%d>\r\n"+
		"Content-Type: application/sdp\r\nContent-Length: %d\r\n\r\n%s", me, len(sdp), sdp)
	start := time.Now()
	_, err := conn.WriteToUDP([]byte(inv), dst)
	must(err)
	read(conn, "SIP/2.0 180")
	d := time.Since(start)
	_, _ = conn.WriteToUDP([]byte(head("CANCEL")+"To: <sip:alice@127.0.0.1>\r\nCSeq: 1 CANCEL\r\nContent-Length: 0\r\n\r\n"), dst)
	res := read(conn, "SIP/2.0 487")
	to := ""
	for _, l := range strings.Split(res, "\r\n") {
		if strings.HasPrefix(strings.ToLower(l), "to:") {
			to = l
		}
	}
	_, _ = conn.WriteToUDP([]byte(head("ACK")+to+"\r\nCSeq: 1 ACK\r\nContent-Length: 0\r\n\r\n"), dst)
	return d
}

// read returns the next message that starts with prefix, skipping others.
func read(conn *net.UDPConn, prefix string) string {
	buf := make([]byte, 65535)
	must(conn.SetReadDeadline(time.Now().Add(5 * time.Second)))
	for {
		n, _, err := conn.ReadFromUDP(buf)
		must(err)
		s := string(buf[:n])
		if strings.HasPrefix(s, prefix) {
			return s
		}
		if os.Getenv("STALL_DEBUG") != "" {
			fmt.Fprintln(os.Stderr, strings.SplitN(s, "\r\n", 2)[0])
		}
	}
}

// listening reports whether a UDP socket is bound to 127.0.0.1:port.
func listening(port int) bool {
	b, _ := os.ReadFile("/proc/net/udp")
	return strings.Contains(string(b), fmt.Sprintf(" 0100007F:%04X ", port))
}

func freeUDP() int {
	c, err := net.ListenPacket("udp4", "127.0.0.1:0")
	must(err)
	defer c.Close()
	return c.LocalAddr().(*net.UDPAddr).Port
}

func pct(d []time.Duration, p int) time.Duration {
	return d[(len(d)-1)*p/100].Round(time.Microsecond)
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
