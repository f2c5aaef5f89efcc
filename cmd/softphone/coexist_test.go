package main

import (
	"html"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/softphone/softphone/internal/testpeer"
)

// TestBesideALocalPBXOn5060: a local PBX (kamailio, a second program)
// holds UDP and TCP 5060 when the phone starts with the default sip.listen
// :5060. The phone takes another free port, says so in its log and on its
// page, registers at that PBX with the port it has, and takes a call from
// baresip whose tone it hears (its recording of the far end holds it).
func TestBesideALocalPBXOn5060(t *testing.T) {
	kam := testpeer.KamailioOn(t, 5060)
	if !testpeer.Listening("udp", 5060) || !testpeer.Listening("tcp", 5060) {
		t.Fatal("kamailio does not hold UDP and TCP 5060")
	}
	home := t.TempDir()
	apiPort := testpeer.FreeTCPPort(t)
	api := "http://127.0.0.1:" + strconv.Itoa(apiPort)
	acc := "0b6f3d2e-7a1c-4e58-9d3b-2c1a0f9e8d7c"
	writeSettings(t, home, map[string]any{ // sip.listen left at its default, :5060
		"api":       map[string]any{"enabled": true, "port": apiPort},
		"sip":       map[string]any{"auto_answer": true},
		"recording": map[string]any{"mode": "all"},
		"accounts": []map[string]any{{"id": acc, "username": "alice", "domain": "127.0.0.1", "port": 5060,
			"transport": "udp", "expiry_s": 300, "enabled": true}},
	})
	if out, err := runCmd(t, "alicepw", noKeyring, "--home", home, "secret", "set", "account:"+acc); err != nil {
		t.Fatalf("secret: %v %s", err, out)
	}
	p := startPhone(t, home, noKeyring)
	var accs []map[string]any
	if !testpeer.WaitFor(15*time.Second, func() bool {
		return testpeer.GetJSON(api+"/accounts", &accs) == nil && len(accs) == 1 && accs[0]["state"] == "registered"
	}) {
		t.Fatalf("not registered beside the PBX: %v\n%s\n%s", accs, p.Output(), kam.Log())
	}
	m := regexp.MustCompile(`SIP port taken by another program: listening on another port.* transport=udp wanted=0\.0\.0\.0:5060 listening=0\.0\.0\.0:(\d+)`).FindStringSubmatch(p.Output())
	if m == nil || m[1] == "5060" {
		t.Fatalf("the log does not say where SIP listens:\n%s", p.Output())
	}
	if !strings.Contains(p.Output(), "transport=tcp wanted=0.0.0.0:5060 listening=0.0.0.0:"+m[1]) {
		t.Errorf("TCP is not on the UDP listener's port %s:\n%s", m[1], p.Output())
	}
	// kamailio keeps the Contact with the port the phone really has.
	out, _ := exec.Command("kamcmd", "-s", "unix:"+filepath.Join(kam.Dir, "kamailio_ctl"), "ul.dump").CombinedOutput()
	if !strings.Contains(string(out), "127.0.0.1:"+m[1]) {
		t.Errorf("kamailio's contact lacks port %s:\n%s", m[1], out)
	}
	if page := pageBody(t, p.URL); !strings.Contains(page, "Port 5060 for SIP over UDP is taken by another program (another phone or a PBX): this phone listens on "+m[1]+" instead") {
		t.Errorf("the page does not say so:\n%s", page)
	}

	bob := testpeer.StartBaresip(t, testpeer.BaresipOpts{User: "bob", Pass: "bobpw", Registrar: kam.Addr(), Tone: 700})
	if !testpeer.WaitFor(10*time.Second, func() bool { return kam.Registered() >= 2 }) {
		t.Fatalf("baresip did not register:\n%s", bob.Log())
	}
	if _, err := bob.Ctrl("dial", "sip:alice@"+kam.Addr()); err != nil {
		t.Fatal(err)
	}
	var calls []map[string]any
	if !testpeer.WaitFor(15*time.Second, func() bool {
		return testpeer.GetJSON(api+"/calls", &calls) == nil && len(calls) == 1 && calls[0]["state"] == "active"
	}) {
		t.Fatalf("the call was not taken: %v\n%s", calls, p.Output())
	}
	id, _ := calls[0]["id"].(string)
	// Two seconds of the far end in the recording (16 kHz stereo 16-bit
	// is 64000 bytes a second), then hang up.
	var rec string
	if !testpeer.WaitFor(15*time.Second, func() bool {
		files, _ := filepath.Glob(filepath.Join(home, "recordings", "*.wav"))
		if len(files) != 1 {
			return false
		}
		fi, err := os.Stat(files[0])
		rec = files[0]
		return err == nil && fi.Size() > 44+2*64000
	}) {
		t.Fatalf("no recording grows: %q\n%s", rec, p.Output())
	}
	if code, out := postJSON(t, api+"/calls/"+id+"/hangup", nil); code >= 300 {
		t.Fatalf("hangup: %d %v", code, out)
	}
	var hist []map[string]any
	if !testpeer.WaitFor(15*time.Second, func() bool {
		return testpeer.GetJSON(api+"/history?limit=1", &hist) == nil && len(hist) == 1 && hist[0]["reason"] == "local-hangup"
	}) {
		t.Fatalf("history: %v", hist)
	}
	if hist[0]["outcome"] != "answered" {
		t.Errorf("history entry %v", hist[0])
	}
	var tone testpeer.Tone
	if !testpeer.WaitFor(10*time.Second, func() bool {
		var err error
		tone, err = testpeer.AnalyseFile(rec, 1) // right: the far end
		return err == nil && tone.RMS > 0
	}) || math.Abs(tone.Hz-700) > 15 {
		t.Fatalf("the phone did not hear baresip's 700 Hz: %+v", tone)
	}
	p.stop(t)
}

// pageBody opens the one-time link and returns the phone page.
func pageBody(t *testing.T, link string) string {
	t.Helper()
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }, Timeout: 10 * time.Second}
	res, err := c.Get(link)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if len(res.Cookies()) == 0 {
		t.Fatalf("login link: %d, no cookie", res.StatusCode)
	}
	req, _ := http.NewRequest("GET", link[:strings.Index(link, "/?")]+"/", nil)
	req.AddCookie(res.Cookies()[0])
	res, err = c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return html.UnescapeString(string(b))
}
