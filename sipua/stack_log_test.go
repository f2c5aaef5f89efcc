package sipua

import (
	"bytes"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emiago/sipgo/sip"
	"github.com/google/uuid"

	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/store"
)

// syncBuf is a log's output that tests read while the phone writes.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestUnparseableDatagramNotLogged: a datagram to the SIP port that sipgo
// cannot parse (a stranger's junk, or an INVITE a quirk breaks) was
// logged through slog's default logger as an ERROR with the whole
// datagram: up to 32 KiB of a stranger's bytes each, whatever the
// phone's log level, and an INVITE's a=crypto key in the clear. It goes
// to the phone's log now, as a Debug line with its length only. Two
// datagrams: a short one with a key, and one of 40,000 bytes (more than
// sipgo's 32 KiB read buffer: cut, so it fails to parse too).
func TestUnparseableDatagramNotLogged(t *testing.T) {
	var out syncBuf
	logger := slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug}))
	peer := newRawPeer(t)
	acc := store.Account{ID: uuid.NewString(), Username: "alice", Domain: "127.0.0.1", Port: peer.port(), Transport: "udp", Enabled: true}
	s := store.Settings{SIP: store.SIPSettings{Listen: "127.0.0.1:0", SelectedAccount: acc.ID}, Accounts: []store.Account{acc}}
	p := startPhoneWith(t, s, secretMap{}, nil, func(c *Config) { c.Logger = logger })
	r := &rawCaller{rawPeer: peer, t: t, phone: &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: p.stackPort()}}
	key := "inline:U0VDUkVUS0VZU0VDUkVUS0VZU0VDUkVUS0VZ"
	msg := "INVITE sip:alice@127.0.0.1 SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:5;branch=z9hG4bKjunk\r\n" +
		"A header line without its colon\r\nContent-Length: 60\r\n\r\na=crypto:1 AES_CM_128_HMAC_SHA1_80 " + key + "\r\n"
	r.write(msg)
	big := bytes.Repeat([]byte("x"), 40000)
	copy(big, "OPTIONS sip:alice@127.0.0.1 SIP/2.0\r\nContent-Length: 39000\r\n\r\n")
	r.write(string(big))
	if !testpeer.WaitFor(5*time.Second, func() bool { return strings.Count(out.String(), "failed to parse") >= 2 }) {
		t.Fatalf("the phone's log did not say the datagrams failed to parse:\n%.2000s", out.String())
	}
	for _, l := range strings.Split(out.String(), "\n") {
		if !strings.Contains(l, "failed to parse") {
			continue
		}
		if !strings.Contains(l, "level=DEBUG") || !strings.Contains(l, "data_bytes=") || len(l) > 1000 {
			t.Errorf("log line %.300q (%d bytes)", l, len(l))
		}
	}
	if strings.Contains(out.String(), key) || strings.Contains(out.String(), "xxxxxxxx") {
		t.Fatal("the log holds the datagrams' content")
	}
}

// TestTransactionLayerLogsToThePhone: sipgo's transaction layer logged
// through slog's default logger (stderr at Info, whatever the phone's
// level): a stranger's response matching no transaction of ours was an
// INFO line there, and a request or response it cannot key (no Via
// branch) an ERROR, one per datagram. They go to the phone's log now,
// as Debug lines (RFC 3261 17.1.1.2, 8.2: such a message is the
// stranger's error, dropped or answered 400), with no message content
// beyond the start line. Nothing reaches slog's default logger.
func TestTransactionLayerLogsToThePhone(t *testing.T) {
	var def syncBuf
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&def, &slog.HandlerOptions{Level: slog.LevelDebug})))
	t.Cleanup(func() { slog.SetDefault(old) })
	var out syncBuf
	logger := slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug}))
	peer := newRawPeer(t)
	acc := store.Account{ID: uuid.NewString(), Username: "alice", Domain: "127.0.0.1", Port: peer.port(), Transport: "udp", Enabled: true}
	s := store.Settings{SIP: store.SIPSettings{Listen: "127.0.0.1:0", SelectedAccount: acc.ID}, Accounts: []store.Account{acc}}
	p := startPhoneWith(t, s, secretMap{}, nil, func(c *Config) { c.Logger = logger })
	r := &rawCaller{rawPeer: peer, t: t, phone: &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: p.stackPort()}}
	secret := "SECRETBODYSECRETBODY"
	r.write("SIP/2.0 200 OK\r\nVia: SIP/2.0/UDP 127.0.0.1:" + itoa(p.stackPort()) + ";branch=z9hG4bKstranger\r\n" +
		"From: <sip:x@127.0.0.1>;tag=a\r\nTo: <sip:y@127.0.0.1>;tag=b\r\nCall-ID: stray\r\nCSeq: 1 INVITE\r\n" +
		"Content-Length: 20\r\n\r\n" + secret)
	r.write("SIP/2.0 200 OK\r\nVia: SIP/2.0/UDP 127.0.0.1:" + itoa(p.stackPort()) + "\r\n" +
		"From: <sip:x@127.0.0.1>;tag=a\r\nTo: <sip:y@127.0.0.1>;tag=b\r\nCall-ID: stray2\r\n" +
		"Content-Length: 20\r\n\r\n" + secret)
	if !testpeer.WaitFor(5*time.Second, func() bool {
		return strings.Contains(out.String(), "Unhandled sip response") && strings.Contains(out.String(), "Client tx failed")
	}) {
		t.Fatalf("the phone's log does not have the transaction layer's lines:\n%.2000s\nslog's default got:\n%.2000s", out.String(), def.String())
	}
	for _, l := range strings.Split(out.String(), "\n") {
		if (strings.Contains(l, "Unhandled sip response") || strings.Contains(l, "Client tx failed")) && !strings.Contains(l, "level=DEBUG") {
			t.Errorf("log line %.300q", l)
		}
	}
	if def.String() != "" {
		t.Errorf("slog's default logger got:\n%.2000s", def.String())
	}
	if strings.Contains(out.String(), secret) {
		t.Error("the phone's log holds a message's body")
	}
}

// TestSipgoDefaultLoggerIsThePhones: what sipgo writes to its package-wide
// logger (its connections' "ref went negative", seen at Warn on stderr in
// every run of the suite) goes to the phone's log at Debug, and nothing of
// it to slog's default logger.
func TestSipgoDefaultLoggerIsThePhones(t *testing.T) {
	var def syncBuf
	old := slog.Default()
	slog.SetDefault(slog.New(slog.NewTextHandler(&def, &slog.HandlerOptions{Level: slog.LevelDebug})))
	t.Cleanup(func() { slog.SetDefault(old) })
	var out syncBuf
	logger := slog.New(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelDebug}))
	acc := store.Account{ID: uuid.NewString(), Username: "alice", Domain: "127.0.0.1", Port: 9, Transport: "udp", Enabled: true}
	s := store.Settings{SIP: store.SIPSettings{Listen: "127.0.0.1:0", SelectedAccount: acc.ID}, Accounts: []store.Account{acc}}
	startPhoneWith(t, s, secretMap{}, nil, func(c *Config) { c.Logger = logger })
	sip.DefaultLogger().Warn("TCP ref went negative", "ip", "127.0.0.1:5060", "ref", -1)
	sip.DefaultLogger().Warn("UDP ref went negative on try close", "src", "127.0.0.1:5060", "ref", -1)
	for _, want := range []string{`level=DEBUG msg="TCP ref went negative"`, `level=DEBUG msg="UDP ref went negative on try close"`} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the phone's log has no %s:\n%.2000s", want, out.String())
		}
	}
	if strings.Contains(def.String(), "ref went negative") {
		t.Errorf("slog's default logger got sipgo's lines:\n%s", def.String())
	}
}
