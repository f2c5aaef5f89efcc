package sipua

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/store"
)

// uasChallengeInfo answers a call, challenges the first INFO inside it with
// 401 and accepts the second only with the right digest, then waits for BYE.
const uasChallengeInfo = `<?xml version="1.0" encoding="ISO-8859-1" ?>
<!DOCTYPE scenario SYSTEM "sipp.dtd">
<scenario name="uas_challenge_info">
  <Global variables="user,pass"/>
  <recv request="INVITE" crlf="true"/>
  <send><![CDATA[

      SIP/2.0 200 OK
      [last_Via:]
      [last_From:]
      [last_To:];tag=[pid]SIPpTag01[call_number]
      [last_Call-ID:]
      [last_CSeq:]
      Contact: <sip:sipp@[local_ip]:[local_port]>
      Content-Type: application/sdp
      Content-Length: [len]

      v=0
      o=sipp 1 1 IN IP[media_ip_type] [media_ip]
      s=-
      c=IN IP[media_ip_type] [media_ip]
      t=0 0
      m=audio [media_port] RTP/AVP 0
      a=rtpmap:0 PCMU/8000

    ]]></send>
  <recv request="ACK"/>
  <recv request="INFO"/>
  <send><![CDATA[

      SIP/2.0 401 Unauthorized
      [last_Via:]
      [last_From:]
      [last_To:]
      [last_Call-ID:]
      [last_CSeq:]
      WWW-Authenticate: Digest realm="sipp.test", nonce="n[pid][call_number]", algorithm=MD5
      Content-Length: 0

    ]]></send>
  <recv request="INFO">
    <action>
      <verifyauth assign_to="authvalid" username="[$user]" password="[$pass]"/>
    </action>
  </recv>
  <nop test="authvalid" next="ok"/>
  <send next="fail"><![CDATA[

      SIP/2.0 403 Forbidden
      [last_Via:]
      [last_From:]
      [last_To:]
      [last_Call-ID:]
      [last_CSeq:]
      Content-Length: 0

    ]]></send>
  <label id="ok"/>
  <send><![CDATA[

      SIP/2.0 200 OK
      [last_Via:]
      [last_From:]
      [last_To:]
      [last_Call-ID:]
      [last_CSeq:]
      Content-Length: 0

    ]]></send>
  <recv request="BYE"/>
  <send><![CDATA[

      SIP/2.0 200 OK
      [last_Via:]
      [last_From:]
      [last_To:]
      [last_Call-ID:]
      [last_CSeq:]
      Content-Length: 0

    ]]></send>
  <timewait milliseconds="200"/>
  <label id="fail"/>
</scenario>
`

func TestDigestInsideDialog(t *testing.T) {
	dir := testpeer.SIPpDir(t)
	must(t, os.WriteFile(filepath.Join(dir, "uas_challenge_info.xml"), []byte(uasChallengeInfo), 0o644))
	port := testpeer.FreeUDPPort(t)
	cmd := testpeer.SIPp(t, dir, "-sf", "uas_challenge_info.xml", "-set", "user", "alice", "-set", "pass", "s3cret",
		"-p", itoa(port), "-m", "1")
	done := make(chan error, 1)
	var out []byte
	go func() {
		var err error
		out, err = cmd.CombinedOutput()
		done <- err
	}()
	if !testpeer.WaitFor(5*time.Second, func() bool { return testpeer.Listening("udp", port) }) {
		t.Fatal("sipp did not start")
	}
	// Calls go to the domain (sipp); REGISTER goes to a registrar that
	// never answers, so sipp sees only the call.
	acc := store.Account{ID: uuid.NewString(), Username: "alice", Domain: "127.0.0.1", Port: port,
		Registrar: "127.0.0.1:" + itoa(testpeer.FreeUDPPort(t)), Transport: "udp", Enabled: true}
	p := startPhone(t, acc, "s3cret")
	c, err := p.Dial(bg, "service", "")
	must(t, err)
	p.waitState(c.ID, StateActive, 10*time.Second)
	must(t, p.SendDTMF(bg, c.ID, "1")) // INFO -> 401 -> INFO with Authorization -> 200
	must(t, p.Hangup(bg, c.ID))
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("sipp: %v\n%s", err, tail(string(out)))
		}
	case <-time.After(15 * time.Second):
		t.Fatal("sipp did not finish")
	}
}
