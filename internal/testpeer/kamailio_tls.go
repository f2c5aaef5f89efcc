package testpeer

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	_ "embed"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

//go:embed testdata/kamailio-tls.cfg
var kamailioTLSCfg string

// Certs are a throw-away CA and a server certificate signed by it for
// 127.0.0.1 and localhost (as the harness's tls/mkcerts.sh makes them).
type Certs struct {
	Dir                 string
	CA, Cert, Key, Both string // PEM files: ca.crt, server.crt, server.key, server.pem (cert + key)
}

// MakeCerts writes a CA and a server certificate into a temporary folder.
func MakeCerts(t testing.TB) Certs {
	t.Helper()
	dir := t.TempDir()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	caTpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "Throw-away test CA"}, IsCA: true,
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(48 * time.Hour), BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign}
	caDER, err := x509.CreateCertificate(rand.Reader, caTpl, caTpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	ca, _ := x509.ParseCertificate(caDER)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(48 * time.Hour),
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		KeyUsage:    x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment}
	der, err := x509.CreateCertificate(rand.Reader, tpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	c := Certs{Dir: dir, CA: filepath.Join(dir, "ca.crt"), Cert: filepath.Join(dir, "server.crt"),
		Key: filepath.Join(dir, "server.key"), Both: filepath.Join(dir, "server.pem")}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kb})
	for path, b := range map[string][]byte{c.CA: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		c.Cert: certPEM, c.Key: keyPEM, c.Both: append(append([]byte{}, certPEM...), keyPEM...)} {
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// KamTLS is kamailio with SIP over TLS beside UDP and TCP.
type KamTLS struct {
	*Kam
	TLSPort int
	Certs   Certs
}

// TLSAddr is host:port of the TLS listener.
func (k *KamTLS) TLSAddr() string { return "127.0.0.1:" + itoa(k.TLSPort) }

// RegisteredOver counts the contacts kamailio holds that came over proto
// ("tls", "udp", "tcp"), from kamcmd ul.dump's Socket lines.
func (k *KamTLS) RegisteredOver(proto string) int {
	out, _ := exec.Command("kamcmd", "-s", "unix:"+filepath.Join(k.Dir, "kamailio_ctl"), "ul.dump").CombinedOutput()
	return strings.Count(string(out), "Socket: "+proto+":")
}

// KamailioTLS starts kamailio with its TLS module (Debian
// kamailio-tls-modules) on a certificate of MakeCerts; it stops when the
// test ends. A UA registered over TLS gets its calls on that connection.
func KamailioTLS(t testing.TB) *KamTLS {
	t.Helper()
	Require(t, "kamailio")
	if _, err := os.Stat("/usr/lib/x86_64-linux-gnu/kamailio/modules/tls.so"); err != nil {
		t.Skip("kamailio-tls-modules not installed")
	}
	dir := t.TempDir()
	certs := MakeCerts(t)
	port, tport := FreeSIPPort(t), FreeTCPPort(t)
	r := strings.NewReplacer("@PORT@", itoa(port), "@TLSPORT@", itoa(tport), "@RUNDIR@", dir, "@CERTDIR@", certs.Dir)
	cfg := r.Replace(kamailioTLSCfg)
	if err := os.WriteFile(filepath.Join(dir, "kamailio.cfg"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("kamailio", "-f", filepath.Join(dir, "kamailio.cfg"), "-DD", "-E", "-Y", dir, "-m", "64", "-M", "8")
	start(t, cmd, filepath.Join(dir, "kamailio.log"))
	if !WaitFor(10*time.Second, func() bool { return Listening("udp", port) && Listening("tcp", tport) }) {
		t.Fatalf("kamailio did not listen on %d and tls %d:\n%s", port, tport, (&Kam{Dir: dir}).Log())
	}
	return &KamTLS{Kam: &Kam{Port: port, Dir: dir}, TLSPort: tport, Certs: certs}
}
