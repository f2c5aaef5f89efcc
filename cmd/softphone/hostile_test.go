package main

import (
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/softphone/softphone/internal/testpeer"
)

// procFDsAndRSS reads a process's open descriptors and resident memory.
func procFDsAndRSS(pid int) (fds int, rssKiB int) {
	ents, _ := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/fd")
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			rssKiB, _ = strconv.Atoi(f[1])
		}
	}
	return len(ents), rssKiB
}

// sipOptions sends OPTIONS over UDP and gives the answer's first line.
func sipOptions(t *testing.T, port int) string {
	t.Helper()
	c, err := net.Dial("udp4", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	msg := "OPTIONS sip:probe@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP " + c.LocalAddr().String() + ";branch=z9hG4bK-" +
		strconv.FormatInt(time.Now().UnixNano(), 36) + "\r\nFrom: <sip:probe@127.0.0.1>;tag=1\r\nTo: <sip:probe@127.0.0.1>\r\n" +
		"Call-ID: probe-" + strconv.FormatInt(time.Now().UnixNano(), 36) + "\r\nCSeq: 1 OPTIONS\r\nMax-Forwards: 70\r\nContent-Length: 0\r\n\r\n"
	if _, err := c.Write([]byte(msg)); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 4096)
	n, err := c.Read(buf)
	if err != nil {
		return err.Error()
	}
	first, _, _ := strings.Cut(string(buf[:n]), "\r\n")
	return first
}

// TestFileDescriptorsRunOut: the real binary under a low RLIMIT_NOFILE
// (prlimit, 160) gets more SIP TCP connections than it has descriptors.
// Accept fails with EMFILE; the phone logs it, backs off and stays up; once
// the connections go, it answers SIP and its page again.
func TestFileDescriptorsRunOut(t *testing.T) {
	testpeer.Require(t, "prlimit")
	home := t.TempDir()
	sipPort, uiPort := testpeer.FreeSIPPort(t), testpeer.FreeTCPPort(t)
	writeSettings(t, home, map[string]any{
		"ui": map[string]any{"port": uiPort},
		// anyone: the probe's OPTIONS gets 200 (from a host that may not
		// call, it gets the 403 an INVITE would, RFC 3261 11.2).
		"sip": map[string]any{"listen": "127.0.0.1:" + strconv.Itoa(sipPort), "accept_calls_from": "anyone"},
	})
	cmd := exec.Command("prlimit", "--nofile=160:160", binary, "--home", home, "--no-browser")
	cmd.Env = append(os.Environ(), noKeyring...)
	p := startProc(t, cmd)
	pid := p.cmd.Process.Pid
	if !testpeer.WaitFor(10*time.Second, func() bool { return sipOptions(t, sipPort) == "SIP/2.0 200 OK" }) {
		t.Fatalf("no answer to OPTIONS:\n%s", p.Output())
	}
	fds, rss := procFDsAndRSS(pid)

	var conns []net.Conn
	defer func() {
		for _, c := range conns {
			c.Close()
		}
	}()
	for ip := 1; ip <= 5; ip++ {
		for range 60 {
			d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.3." + strconv.Itoa(ip))}, Timeout: 5 * time.Second}
			c, err := d.Dial("tcp4", "127.0.0.1:"+strconv.Itoa(sipPort))
			if err != nil {
				t.Fatalf("connection %d: %v", len(conns)+1, err)
			}
			conns = append(conns, c)
		}
	}
	if !testpeer.WaitFor(15*time.Second, func() bool { return strings.Contains(p.Output(), "accept failed; retrying") }) {
		t.Fatalf("the phone never ran out of descriptors:\n%s", p.Output())
	}
	// A page request while no descriptor is free: its accept fails too
	// (fasthttp alone would stop serving and the phone would exit).
	pageDuring := make(chan int, 1)
	go func() {
		c := http.Client{Timeout: 30 * time.Second}
		resp, err := c.Get("http://127.0.0.1:" + strconv.Itoa(uiPort) + "/")
		if err != nil {
			pageDuring <- 0
			return
		}
		resp.Body.Close()
		pageDuring <- resp.StatusCode
	}()
	peakFDs, peakRSS := procFDsAndRSS(pid)
	t.Logf("%d connections under RLIMIT_NOFILE 160: fds %d -> %d, RSS %d -> %d KiB", len(conns), fds, peakFDs, rss, peakRSS)

	for _, c := range conns {
		c.Close()
	}
	conns = nil
	if !testpeer.WaitFor(15*time.Second, func() bool { return sipOptions(t, sipPort) == "SIP/2.0 200 OK" }) {
		t.Fatalf("no SIP answer after the connections went:\n%s", p.Output())
	}
	if got := <-pageDuring; got == 0 {
		t.Fatalf("the page request made during the attack got no answer:\n%s", p.Output())
	}
	tc, err := net.Dial("tcp4", "127.0.0.1:"+strconv.Itoa(sipPort))
	if err != nil {
		t.Fatal(err)
	}
	defer tc.Close()
	_, _ = tc.Write([]byte("OPTIONS sip:probe@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/TCP 127.0.0.1:9;branch=z9hG4bK-tcp1\r\n" +
		"From: <sip:probe@127.0.0.1>;tag=1\r\nTo: <sip:probe@127.0.0.1>\r\nCall-ID: tcp-after\r\nCSeq: 1 OPTIONS\r\n" +
		"Max-Forwards: 70\r\nContent-Length: 0\r\n\r\n"))
	_ = tc.SetReadDeadline(time.Now().Add(5 * time.Second))
	buf := make([]byte, 2048)
	if n, err := tc.Read(buf); err != nil || !strings.HasPrefix(string(buf[:n]), "SIP/2.0 200 OK") {
		t.Fatalf("SIP over TCP after the attack: %q, %v\n%s", buf[:n], err, p.Output())
	}
	var status int
	if !testpeer.WaitFor(15*time.Second, func() bool {
		resp, err := http.Get("http://127.0.0.1:" + strconv.Itoa(uiPort) + "/")
		if err != nil {
			return false
		}
		resp.Body.Close()
		status = resp.StatusCode
		return true
	}) {
		t.Fatalf("the page did not answer after the attack:\n%s", p.Output())
	}
	select {
	case <-p.done:
		t.Fatalf("the phone exited: %v\n%s", p.err, p.Output())
	default:
	}
	if !testpeer.WaitFor(10*time.Second, func() bool { n, _ := procFDsAndRSS(pid); return n <= fds+5 }) {
		n, _ := procFDsAndRSS(pid)
		t.Errorf("descriptors not given back: %d, %d before the attack", n, fds)
	}
	after, rssAfter := procFDsAndRSS(pid)
	t.Logf("after: fds %d, RSS %d KiB, page status %d", after, rssAfter, status)
	p.stop(t)
}

// TestNumberInjectionThroughAPI: a number with CR/LF (header injection
// toward the PBX) through POST /calls gets 400 with the words and
// nothing reaches the PBX; a clean number right after does reach it.
func TestNumberInjectionThroughAPI(t *testing.T) {
	pbx, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pbx.Close()
	home := t.TempDir()
	apiPort := testpeer.FreeTCPPort(t)
	api := "http://127.0.0.1:" + strconv.Itoa(apiPort)
	writeSettings(t, home, map[string]any{
		"api": map[string]any{"enabled": true, "port": apiPort},
		"sip": map[string]any{"listen": "127.0.0.1:" + strconv.Itoa(testpeer.FreeSIPPort(t))},
		"accounts": []map[string]any{{"id": "6f1c2d3e-4a5b-4c6d-8e7f-901a2b3c4d5e", "name": "Office", "username": "alice",
			"domain": "127.0.0.1", "port": pbx.LocalAddr().(*net.UDPAddr).Port, "registrar": "127.0.0.1:" + strconv.Itoa(testpeer.FreeUDPPort(t)),
			"transport": "udp", "enabled": true}},
	})
	p := startPhone(t, home, noKeyring)
	defer p.stop(t)
	// The line is up once it tries to register (its registrar is silent).
	if !testpeer.WaitFor(10*time.Second, func() bool {
		var accs []map[string]any
		return testpeer.GetJSON(api+"/accounts", &accs) == nil && len(accs) == 1 && accs[0]["state"] != "unregistered"
	}) {
		t.Fatalf("phone not up:\n%s", p.Output())
	}
	for _, n := range []string{"123\r\nX-Evil: 1", "sip:bob@pbx.test\r\nContact: <sip:evil@x>", "123\x00", "bob@ho st", "<sip:a@b>"} {
		status, body := postJSON(t, api+"/calls", map[string]any{"number": n})
		if status != http.StatusBadRequest || body["error"] != "the number has characters a phone number cannot have" {
			t.Fatalf("%q: %d %v", n, status, body)
		}
	}
	if status, body := postJSON(t, api+"/calls", map[string]any{"number": "123"}); status != http.StatusCreated {
		t.Fatalf("clean number: %d %v", status, body)
	}
	buf := make([]byte, 65536)
	_ = pbx.SetReadDeadline(time.Now().Add(10 * time.Second))
	n, _, err := pbx.ReadFrom(buf)
	if err != nil {
		t.Fatalf("the PBX got nothing: %v\n%s", err, p.Output())
	}
	if first, _, _ := strings.Cut(string(buf[:n]), "\r\n"); first != "INVITE sip:123@127.0.0.1 SIP/2.0" {
		t.Fatalf("the PBX's first message: %q", buf[:n])
	}
}
