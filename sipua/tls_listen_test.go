package sipua

import (
	"bytes"
	"crypto/tls"
	"encoding/pem"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/store"
)

func (p *Phone) tlsListenPort() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stack == nil {
		return 0
	}
	return p.stack.tlsPort
}

// TestTLSListenerWithBaresip: baresip calls the phone straight at its TLS
// listener (sip.tls_listen with sip.tls_cert_file/tls_key_file, verified
// by baresip against the CA), the call is answered with SRTP and shows TLS,
// and baresip's BYE comes over the same connection.
func TestTLSListenerWithBaresip(t *testing.T) {
	certs := testpeer.MakeCerts(t)
	bob := testpeer.StartBaresip(t, testpeer.BaresipOpts{User: "bob", Tone: 440, MediaEnc: "srtp-mand",
		CAFile: certs.CA, Codecs: []string{"PCMU/8000/1"}})
	acc := store.Account{ID: uuid.NewString(), Username: "alice", Domain: "127.0.0.1",
		Registrar: "127.0.0.1:" + itoa(testpeer.FreeUDPPort(t)), Transport: "udp", Enabled: true,
		MediaEncryption: store.MediaEncryptionSDES}
	a := startPhoneWith(t, store.Settings{SIP: store.SIPSettings{Listen: "127.0.0.1:0", AutoAnswer: true,
		TLSListen: "127.0.0.1:0", TLSCertFile: certs.Cert, TLSKeyFile: certs.Key}, Accounts: []store.Account{acc}},
		secretMap{}, nil, withAudio(t))
	port := a.tlsListenPort()
	if port == 0 {
		t.Fatal("no TLS listener")
	}
	_, err := bob.Ctrl("dial", "sip:alice@127.0.0.1:"+itoa(port)+";transport=tls")
	must(t, err)
	in := a.waitState("", StateActive, 10*time.Second)
	if in.Direction != DirIn || !in.TLS || !in.Secure {
		t.Fatalf("call over our TLS listener: %+v\n%s", in, tail(bob.Log()))
	}
	_, err = bob.Ctrl("hangup")
	must(t, err)
	evs := a.callEvents(in.ID, 10*time.Second)
	if end := evs[len(evs)-1].Call; end.Reason != ReasonRemoteHangup {
		t.Fatalf("end %+v", end)
	}
}

// TestTLSListenerOwnCertificate: without certificate files the listener
// makes a certificate, keeps it in the home (key 0600) and uses the same
// one at the next start.
func TestTLSListenerOwnCertificate(t *testing.T) {
	home := t.TempDir()
	served := func() []byte {
		a := startPhoneWith(t, store.Settings{SIP: store.SIPSettings{Listen: "127.0.0.1:0", TLSListen: "127.0.0.1:0"}},
			secretMap{}, nil, func(c *Config) { c.Home = home })
		conn, err := tls.Dial("tcp", "127.0.0.1:"+itoa(a.tlsListenPort()), &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // the test reads what is served
		must(t, err)
		defer conn.Close()
		return conn.ConnectionState().PeerCertificates[0].Raw
	}
	first := served()
	b, err := os.ReadFile(filepath.Join(home, tlsCertName))
	must(t, err)
	blk, _ := pem.Decode(b)
	if blk == nil || !bytes.Equal(blk.Bytes, first) {
		t.Fatal("the served certificate is not the one kept in the home")
	}
	if st, err := os.Stat(filepath.Join(home, tlsKeyName)); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v %v", st.Mode(), err)
	}
	if !bytes.Equal(served(), first) {
		t.Fatal("a new certificate at the second start")
	}
}

func TestSipsNeedsTLSAccount(t *testing.T) {
	acc := store.Account{ID: uuid.NewString(), Username: "alice", Domain: "127.0.0.1",
		Registrar: "127.0.0.1:" + itoa(testpeer.FreeUDPPort(t)), Transport: "udp", Enabled: true}
	a := startPhone(t, acc, "")
	if _, err := a.Dial(bg, "sips:bob@127.0.0.1", ""); !errors.Is(err, ErrSipsNeedsTLS) {
		t.Fatalf("sips on a UDP account: %v", err)
	}
}
