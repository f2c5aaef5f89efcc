package testpeer

import (
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

//go:embed testdata/kamailio.cfg
var kamailioCfg string

// Kam is a running kamailio registrar and proxy on 127.0.0.1 (UDP and TCP)
// with digest users alice/alicepw, bob/bobpw, carol/carolpw, dave/davepw.
type Kam struct {
	Port int
	Dir  string
	IP   string // "" is 127.0.0.1 (KamailioIn sets another)
}

// Addr is host:port of the proxy.
func (k *Kam) Addr() string {
	if k.IP != "" {
		return fmt.Sprintf("%s:%d", k.IP, k.Port)
	}
	return fmt.Sprintf("127.0.0.1:%d", k.Port)
}

// Log returns what kamailio printed so far.
func (k *Kam) Log() string {
	b, _ := os.ReadFile(filepath.Join(k.Dir, "kamailio.log"))
	return string(b)
}

// Registered counts the contacts kamailio holds (kamcmd ul.dump).
func (k *Kam) Registered() int {
	out, _ := exec.Command("kamcmd", "-s", "unix:"+filepath.Join(k.Dir, "kamailio_ctl"), "ul.dump").CombinedOutput()
	return strings.Count(string(out), "Address:")
}

// Kamailio starts kamailio for the test; it stops when the test ends.
func Kamailio(t testing.TB) *Kam {
	t.Helper()
	Require(t, "kamailio")
	return KamailioOn(t, FreeSIPPort(t))
}

// KamailioOn starts kamailio on UDP and TCP port of 127.0.0.1, e.g. 5060 to
// be the local PBX that holds the SIP port the phone wants (issue 17).
func KamailioOn(t testing.TB, port int) *Kam {
	t.Helper()
	Require(t, "kamailio")
	dir := t.TempDir()
	cfg := strings.ReplaceAll(kamailioCfg, "@PORT@", itoa(port))
	cfg = strings.ReplaceAll(cfg, "@RUNDIR@", dir)
	if err := os.WriteFile(filepath.Join(dir, "kamailio.cfg"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("kamailio", "-f", filepath.Join(dir, "kamailio.cfg"), "-DD", "-E", "-Y", dir, "-m", "64", "-M", "8")
	start(t, cmd, filepath.Join(dir, "kamailio.log"))
	if !WaitFor(10*time.Second, func() bool { return Listening("udp", port) && Listening("tcp", port) }) {
		t.Fatalf("kamailio did not listen on %d:\n%s", port, (&Kam{Dir: dir}).Log())
	}
	return &Kam{Port: port, Dir: dir}
}

// Listening reports whether something listens on 127.0.0.1:port ("udp" or "tcp").
func Listening(proto string, port int) bool {
	b, err := os.ReadFile("/proc/net/" + proto)
	if err != nil {
		return false
	}
	want := fmt.Sprintf("0100007F:%04X", port)
	for _, line := range strings.Split(string(b), "\n")[1:] {
		f := strings.Fields(line)
		if len(f) < 4 || f[1] != want {
			continue
		}
		if proto == "udp" || f[3] == "0A" { // 0A = TCP LISTEN
			return true
		}
	}
	return false
}

// KamailioIn starts kamailio on ip (UDP and TCP, a free port) through
// prefix, e.g. NAT.In() for the outside of a NAT. Besides the usual
// routing it logs what it sees of the phone: the Contact and SDP of every
// INVITE and REGISTER, and of every answer with SDP, as lines starting
// "seen " (Log), so a test can tell which address the PBX was given.
func KamailioIn(t testing.TB, prefix []string, ip string) *Kam {
	t.Helper()
	Require(t, "kamailio")
	dir := t.TempDir()
	port := FreeSIPPort(t)
	cfg := strings.ReplaceAll(kamailioCfg, "@PORT@", itoa(port))
	cfg = strings.ReplaceAll(cfg, "@RUNDIR@", dir)
	cfg = strings.ReplaceAll(cfg, "127.0.0.1", ip)
	cfg = strings.Replace(cfg, "request_route {\n", "request_route {\n"+
		`    if (is_method("INVITE|REGISTER")) { xlog("L_NOTICE", "seen $rm contact=$ct sdp=[$rb]\n"); }`+"\n", 1)
	cfg += "\nonreply_route {\n" +
		`    if (has_body("application/sdp")) { xlog("L_NOTICE", "seen reply $rs contact=$ct sdp=[$rb]\n"); }` + "\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "kamailio.cfg"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	args := append(append([]string{}, prefix...), "kamailio", "-f", filepath.Join(dir, "kamailio.cfg"), "-DD", "-E", "-Y", dir, "-m", "64", "-M", "8")
	start(t, exec.Command(args[0], args[1:]...), filepath.Join(dir, "kamailio.log"))
	if !WaitFor(10*time.Second, func() bool {
		return ListeningIn(prefix, "udp", ip, port) && ListeningIn(prefix, "tcp", ip, port)
	}) {
		t.Fatalf("kamailio did not listen on %s:%d:\n%s", ip, port, (&Kam{Dir: dir}).Log())
	}
	return &Kam{Port: port, Dir: dir, IP: ip}
}
