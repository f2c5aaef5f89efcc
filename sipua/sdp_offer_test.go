package sipua

import (
	"context"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/softphone/softphone/audio"
)

// TestUnusableOfferRefusedBeforeRinging: an INVITE whose offer cannot be
// used gets 488 (RFC 3261 21.4.26) before it rings. A c= line naming a
// host (RFC 4566 5.7 allows one) is not looked up: the lookup ran on the
// call's goroutine and told the name's owner that this phone exists. The
// test's resolver is a UDP socket that takes queries and never answers:
// before, the INVITE stalled behind the lookup and the socket got the
// query for the name. An offer without a codec we speak rang, and failed
// only when the person answered it.
func TestUnusableOfferRefusedBeforeRinging(t *testing.T) {
	dns, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer dns.Close()
	// Swapped before the phone starts and put back after it stopped
	// (cleanups run last-in first-out), so no goroutine of the phone
	// reads it while it changes.
	saved := net.DefaultResolver
	net.DefaultResolver = &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, "udp4", dns.LocalAddr().String())
	}}
	t.Cleanup(func() { net.DefaultResolver = saved })

	p, r := rawCallerPhone(t)
	host := string(buildSDP("127.0.0.1", 40000, []audio.Codec{audio.CodecPCMU}, audio.SendRecv, 1, 1))
	host = strings.ReplaceAll(host, "IN IP4 127.0.0.1", "IN IP4 media.softphone-test.example")
	gsm := string(buildSDP("127.0.0.1", 40000, []audio.Codec{{Name: "GSM", PT: 3, ClockRate: 8000, Channels: 1}}, audio.SendRecv, 1, 1))
	for i, tc := range []struct{ name, sdp string }{
		{"host name in c=", host},
		{"no common codec", gsm},
	} {
		br := r.request("INVITE", r.callID+tc.name, r.ftag, "", 1, "", tc.sdp)
		var res string
		for res = r.response(br); statusOf(res) == 100; res = r.response(br) {
		}
		if statusOf(res) != 488 {
			t.Fatalf("%s: answered %q, want 488 before ringing", tc.name, strings.SplitN(res, "\r\n", 2)[0])
		}
		r.ack(1, br)
		p.wait(tc.name+": the call ended", 5*time.Second, func(e Event) bool { return e.Kind == EventCallEnded })
		if n := len(p.Calls()); n != 0 {
			t.Fatalf("%s: %d calls after the 488", tc.name, n)
		}
		if i == 0 {
			_ = dns.SetReadDeadline(time.Now().Add(50 * time.Millisecond))
			buf := make([]byte, 512)
			if n, _, err := dns.ReadFromUDP(buf); err == nil {
				t.Fatalf("%s: the phone looked the name up (%d-byte DNS query)", tc.name, n)
			}
		}
	}
}
