package web

import (
	"html"
	"strings"
	"testing"

	"github.com/softphone/softphone/sipua"
	"github.com/softphone/softphone/store"
)

// listeningPhone is the test phone with listeners to report.
type listeningPhone struct {
	*testPhone
	states []sipua.ListenState
}

func (p listeningPhone) ListenStates() []sipua.ListenState { return p.states }

type fullRange struct{ n int }

func (f fullRange) RTPOutsideRange() (int, int, int) { return f.n, 16384, 16389 }

// TestNoticesTellCoexistence: a moved SIP port, a listener that could not
// open and a full RTP range are said on every page, in English and German.
func TestNoticesTellCoexistence(t *testing.T) {
	states := []sipua.ListenState{
		{Transport: "udp", Want: "0.0.0.0:5060", Addr: "0.0.0.0:40123", Moved: true, Err: "bind: address already in use"},
		{Transport: "tcp", Want: "0.0.0.0:5060", Err: "wsaioctl: not supported"},
	}
	r := newRig(t, func(c *Config) {
		c.Phone = listeningPhone{testPhone: c.Phone.(*testPhone), states: states}
		c.Ports = fullRange{n: 2}
	})
	r.login()
	for _, page := range []string{"/", "/settings"} {
		_, body := r.do("GET", page, nil, nil)
		body = html.UnescapeString(body)
		for _, want := range []string{
			"Port 5060 for SIP over UDP is taken by another program (another phone or a PBX): this phone listens on 40123 instead",
			"SIP over TCP cannot listen on 0.0.0.0:5060 (wsaioctl: not supported): accounts using TCP cannot register.",
			"All RTP ports 16384-16389 were taken: 2 call(s) used ports outside that range.",
		} {
			if !strings.Contains(body, want) {
				t.Errorf("%s lacks %q", page, want)
			}
		}
	}
	if _, err := r.st.Update(func(s *store.Settings) error { s.Appearance.Language = "de"; return nil }); err != nil {
		t.Fatal(err)
	}
	_, body := r.do("GET", "/", nil, nil)
	if body = html.UnescapeString(body); !strings.Contains(body, "Port 5060 für SIP über UDP ist von einem anderen Programm belegt") ||
		!strings.Contains(body, "Alle RTP-Ports 16384-16389 waren belegt") {
		t.Errorf("German page lacks the notices:\n%s", body)
	}
}

// TestNoNoticesWhenAllIsWell: listeners on the asked port and no call
// outside the range say nothing.
func TestNoNoticesWhenAllIsWell(t *testing.T) {
	r := newRig(t, func(c *Config) {
		c.Phone = listeningPhone{testPhone: c.Phone.(*testPhone), states: []sipua.ListenState{{Transport: "udp", Want: "0.0.0.0:5060", Addr: "0.0.0.0:5060"}}}
		c.Ports = fullRange{}
	})
	r.login()
	if _, body := r.do("GET", "/", nil, nil); strings.Contains(body, `class="warn notice"`) {
		t.Errorf("a notice without cause:\n%s", body)
	}
}
