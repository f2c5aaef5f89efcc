package sipua

import (
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/softphone/softphone/internal/testpeer"
)

// TestMethodAnswers: a method the phone knows but does not take gets 405
// with Allow, an unknown one 501 (RFC 3261 8.2.1, 21.5.2), OPTIONS 200 with
// Allow and Accept; Allow lists the methods that have a handler.
func TestMethodAnswers(t *testing.T) {
	p := startPhone(t, sippAccount(t, testpeer.FreeUDPPort(t)), "")
	c, err := net.Dial("udp4", "127.0.0.1:"+strconv.Itoa(p.stackPort()))
	must(t, err)
	defer c.Close()
	allow := "Allow: INVITE, ACK, BYE, CANCEL, OPTIONS, NOTIFY, INFO, REFER"
	for i, tc := range []struct{ method, want string }{
		{"MESSAGE", "SIP/2.0 405 Method Not Allowed"},
		{"SUBSCRIBE", "SIP/2.0 405 Method Not Allowed"},
		{"FROBNICATE", "SIP/2.0 501 Not Implemented"},
		{"OPTIONS", "SIP/2.0 200 OK"},
	} {
		msg := tc.method + " sip:alice@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP " + c.LocalAddr().String() +
			";branch=z9hG4bK-m" + strconv.Itoa(i) + "\r\nFrom: <sip:probe@127.0.0.1>;tag=1\r\nTo: <sip:alice@127.0.0.1>\r\n" +
			"Call-ID: method-" + strconv.Itoa(i) + "\r\nCSeq: 1 " + tc.method + "\r\nMax-Forwards: 70\r\nContent-Length: 0\r\n\r\n"
		_, err := c.Write([]byte(msg))
		must(t, err)
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		buf := make([]byte, 4096)
		n, err := c.Read(buf)
		must(t, err)
		res := string(buf[:n])
		if !strings.HasPrefix(res, tc.want) || !strings.Contains(res, allow) {
			t.Errorf("%s: got\n%s\nwant %q with %q", tc.method, res, tc.want, allow)
		}
		if tc.method == "OPTIONS" && !strings.Contains(res, "Accept: "+acceptHeader) {
			t.Errorf("OPTIONS without Accept:\n%s", res)
		}
	}
}
