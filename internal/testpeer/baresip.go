package testpeer

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"
)

// BaresipOpts configure a headless baresip.
type BaresipOpts struct {
	User       string   // SIP user; default "peer"
	Pass       string   // password for the registrar; empty = no registration
	Registrar  string   // host:port of the registrar/proxy; empty = direct on 127.0.0.1
	Tone       float64  // Hz of the tone it plays as its microphone; 0 = 1000
	ToneSecs   int      // length of that tone; it hangs up when the tone ends; 0 = 60
	AutoAnswer bool     // answer incoming calls at once
	Codecs     []string // e.g. "PCMU/8000/1", "G722/8000/1", "opus/48000/2"; default PCMU, PCMA
	// Presence loads baresip's presence module: it PUBLISHes "open" at start
	// (ctrl presence_offline / presence_online change it) and SUBSCRIBEs to
	// the Contacts given with ;presence=p2p (ctrl "contacts" shows them).
	Presence bool
	Contacts []string // lines of its contacts file, e.g. `"Alice" <sip:alice@127.0.0.1:5080>;presence=p2p`
	// MediaEnc is the account's mediaenc: "srtp" (SDES, best effort),
	// "srtp-mand" (SDES, RTP/SAVP only), "dtls_srtp"; empty: clear RTP.
	MediaEnc string
	Modules  []string // more modules to load, e.g. "stun.so"
	CAFile   string   // CA for SIP over TLS (sip_cafile); baresip then also listens for TLS on its port+1
	// IP is the address it listens on (SIP, RTP, ctrl_tcp); "" is 127.0.0.1.
	// Prefix starts it elsewhere, e.g. NAT.In() with IP NAT.OutsideIP.
	IP     string
	Prefix []string
}

// Baresip is a running baresip that plays a tone and records what it hears
// (sndfile: Dir/rec/*-dec.wav).
type Baresip struct {
	Port, CtrlPort int
	Dir            string
	User           string
	IP             string
	registrar      string
}

// URI is the address that reaches this baresip directly.
func (b *Baresip) URI() string { return fmt.Sprintf("sip:%s@%s:%d", b.User, b.IP, b.Port) }

// Log returns what baresip printed so far.
func (b *Baresip) Log() string {
	d, _ := os.ReadFile(filepath.Join(b.Dir, "baresip.log"))
	return string(d)
}

// WaitLog waits until baresip's log holds s.
func (b *Baresip) WaitLog(s string, timeout time.Duration) bool {
	return WaitFor(timeout, func() bool { return fileContains(filepath.Join(b.Dir, "baresip.log"), s) })
}

// Recordings lists what baresip recorded of what it heard, oldest first.
func (b *Baresip) Recordings() []string {
	m, _ := filepath.Glob(filepath.Join(b.Dir, "rec", "*dec.wav"))
	sort.Strings(m)
	return m
}

// Baresip starts a baresip for the test; it is killed when the test ends.
func StartBaresip(t testing.TB, o BaresipOpts) *Baresip {
	t.Helper()
	Require(t, "baresip")
	if o.User == "" {
		o.User = "peer"
	}
	if o.Tone == 0 {
		o.Tone = 1000
	}
	if len(o.Codecs) == 0 {
		o.Codecs = []string{"PCMU/8000/1", "PCMA/8000/1"}
	}
	if o.IP == "" {
		o.IP = "127.0.0.1"
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "rec"), 0o755); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join(dir, "tone.wav")
	if o.ToneSecs == 0 {
		o.ToneSecs = 60
	}
	if err := WriteTone(src, o.Tone, 8000, o.ToneSecs); err != nil {
		t.Fatal(err)
	}
	sip, ctrl, http := FreeSIPPort(t), FreeTCPPort(t), FreeTCPPort(t)
	rtp := freeUDPRange(t, 40)
	mods := "module\t\t\tg711.so\n"
	if o.MediaEnc != "" {
		o.Modules = append(o.Modules, "srtp.so", "dtls_srtp.so")
	}
	for _, m := range o.Modules {
		mods += "module\t\t\t" + m + "\n"
	}
	for _, c := range o.Codecs {
		switch strings.ToLower(strings.SplitN(c, "/", 2)[0]) {
		case "g722":
			mods += "module\t\t\tg722.so\n"
		case "opus":
			mods += "module\t\t\topus.so\n"
		}
	}
	cfg := fmt.Sprintf(`poll_method		epoll
sip_listen		@IP@:%d
net_interface		@IP@
dns_server		127.0.0.1:53
call_local_timeout	120
call_max_calls		4
audio_player		aubridge,nil
audio_alert		aubridge,nil
audio_source		aufile,%s
rtp_ports		%d-%d
rtcp_mux		no
jitter_buffer_delay	5-10
statmode_default	off
module_path		/usr/lib/baresip/modules
%smodule			aufile.so
module			aubridge.so
module			sndfile.so
module_tmp		account.so
module_app		menu.so
module_app		ctrl_tcp.so
module_app		httpd.so
%sctrl_tcp_listen		@IP@:%d
http_listen		@IP@:%d
snd_path		%s
`, sip, src, rtp, rtp+39, mods, presenceModules(o.Presence), ctrl, http, filepath.Join(dir, "rec"))
	cfg = strings.ReplaceAll(cfg, "@IP@", o.IP)
	if o.CAFile != "" {
		cfg += "sip_cafile\t\t" + o.CAFile + "\n"
	}
	host := fmt.Sprintf("%s:%d", o.IP, sip)
	if o.Registrar != "" {
		host = o.Registrar
	}
	acc := fmt.Sprintf("<sip:%s@%s>;audio_codecs=%s", o.User, host, strings.Join(o.Codecs, ","))
	if o.Pass != "" {
		acc += ";auth_pass=" + o.Pass + ";regint=300"
	} else {
		acc += ";regint=0"
	}
	if o.AutoAnswer {
		acc += ";answermode=auto"
	}
	if o.Presence {
		acc += ";pubint=300"
	}
	if o.MediaEnc != "" {
		acc += ";mediaenc=" + o.MediaEnc
	}
	files := map[string]string{"config": cfg, "accounts": acc + "\n"}
	if len(o.Contacts) > 0 {
		files["contacts"] = strings.Join(o.Contacts, "\n") + "\n"
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	args := append(append([]string{}, o.Prefix...), "baresip", "-f", dir)
	start(t, exec.Command(args[0], args[1:]...), filepath.Join(dir, "baresip.log"))
	b := &Baresip{Port: sip, CtrlPort: ctrl, Dir: dir, User: o.User, IP: o.IP, registrar: o.Registrar}
	if !WaitFor(10*time.Second, func() bool {
		return ListeningIn(o.Prefix, "udp", o.IP, sip) && ListeningIn(o.Prefix, "tcp", o.IP, ctrl)
	}) {
		t.Fatalf("baresip did not start:\n%s", b.Log())
	}
	if o.Pass != "" && !b.WaitLog("200 OK", 10*time.Second) {
		t.Fatalf("baresip did not register at %s:\n%s", o.Registrar, b.Log())
	}
	return b
}

// Ctrl sends one ctrl_tcp command (dial URI, hangup, hold, resume,
// transfer URI, sndcode 1, listcalls, accept) and returns baresip's answer.
func (b *Baresip) Ctrl(command string, params ...string) (string, error) {
	ip := b.IP
	if ip == "" {
		ip = "127.0.0.1"
	}
	c, err := net.DialTimeout("tcp", fmt.Sprintf("%s:%d", ip, b.CtrlPort), 3*time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	msg, _ := json.Marshal(map[string]string{"command": command, "params": strings.Join(params, " "), "token": "t"})
	if _, err := fmt.Fprintf(c, "%d:%s,", len(msg), msg); err != nil {
		return "", err
	}
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	var buf []byte
	tmp := make([]byte, 4096)
	for {
		n, err := c.Read(tmp)
		buf = append(buf, tmp[:n]...)
		for {
			i := strings.IndexByte(string(buf), ':')
			if i < 0 {
				break
			}
			var l int
			if _, e := fmt.Sscanf(string(buf[:i]), "%d", &l); e != nil || len(buf) < i+1+l+1 {
				break
			}
			body := buf[i+1 : i+1+l]
			buf = buf[i+1+l+1:]
			var m map[string]any
			if json.Unmarshal(body, &m) == nil && m["response"] == true {
				data, _ := m["data"].(string)
				if ok, _ := m["ok"].(bool); !ok {
					return data, fmt.Errorf("baresip %s: %s", command, data)
				}
				return data, nil
			}
		}
		if err != nil {
			return "", fmt.Errorf("baresip %s: %w", command, err)
		}
	}
}

// presenceModules are the config lines of baresip's presence module: as
// module_app, so they load after the accounts (a plain module line loads
// them first and nothing is published).
func presenceModules(on bool) string {
	if !on {
		return ""
	}
	return "module_app\t\tcontact.so\nmodule_app\t\tpresence.so\n"
}
