package sipua

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/emiago/sipgo"
	"github.com/emiago/sipgo/sip"
	"github.com/google/uuid"

	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/store"
)

// tlsRegistrar runs a sipgo registrar over TLS with a certificate from a
// throw-away CA; it returns its port and the CA file.
func tlsRegistrar(t *testing.T) (int, string) {
	t.Helper()
	caKey, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	caTpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"}, IsCA: true,
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTpl, caTpl, &caKey.PublicKey, caKey)
	must(t, err)
	ca, _ := x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, KeyUsage: x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tpl, ca, &key.PublicKey, caKey)
	must(t, err)
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	must(t, os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), 0o600))

	ua, err := sipgo.NewUA()
	must(t, err)
	srv, err := sipgo.NewServer(ua)
	must(t, err)
	srv.OnRegister(func(req *sip.Request, tx sip.ServerTransaction) {
		res := sip.NewResponseFromRequest(req, 200, "OK", nil)
		if c := req.Contact(); c != nil {
			res.AppendHeader(sip.HeaderClone(c))
		}
		_ = tx.Respond(res)
	})
	port := testpeer.FreeTCPPort(t)
	ln, err := tls.Listen("tcp4", net.JoinHostPort("127.0.0.1", itoa(port)), &tls.Config{
		Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}})
	must(t, err)
	go func() { _ = srv.ServeTLS(ln) }()
	t.Cleanup(func() { ln.Close(); ua.Close() })
	_ = context.Background
	return port, caFile
}

func TestRegisterTLSWithCAFile(t *testing.T) {
	port, caFile := tlsRegistrar(t)
	acc := store.Account{ID: uuid.NewString(), Username: "alice", Domain: "127.0.0.1", Port: port, Transport: "tls", Enabled: true, ExpiryS: 60}
	p := startPhone(t, acc, "")
	// The system CAs do not know the registrar's certificate.
	e := p.wait("failure", 10*time.Second, func(e Event) bool { return e.Kind == EventRegistration && (e.Registration.OK || e.Registration.Failed) })
	if !e.Registration.Failed {
		t.Fatalf("registered with an unknown certificate: %+v", e.Registration)
	}
	t.Logf("cause without CA file: %s", e.Registration.Cause)
	s := p.settingsNow()
	s.Accounts[0].CAFile = caFile
	p.Apply(s)
	p.waitRegistered()
	if st := p.Accounts()[0]; st.State != RegRegistered {
		t.Fatalf("state %+v", st)
	}
}
