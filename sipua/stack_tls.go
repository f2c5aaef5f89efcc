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
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/emiago/sipgo/sip"

	"github.com/softphone/softphone/store"
)

// The certificate the TLS listener uses when sip.tls_cert_file is empty:
// made at the first start and kept in the home, so a PBX that pinned it
// keeps trusting the phone.
const (
	tlsCertName = "sip-tls.crt"
	tlsKeyName  = "sip-tls.key"
	tlsCertLife = 5 * 365 * 24 * time.Hour
)

// tlsSettings is what of the settings the TLS listener depends on; a change
// moves the listeners as a changed sip.listen does.
type tlsSettings struct{ listen, cert, key string }

func tlsSettingsOf(s store.SIPSettings) tlsSettings {
	return tlsSettings{s.TLSListen, s.TLSCertFile, s.TLSKeyFile}
}

// listenTLS opens the SIP over TLS listener of sip.tls_listen (RFC 3261
// 26.2; RFC 5630 for sips:) beside UDP and TCP. When the port is taken it
// listens on another one (the Contact says which), as TCP does.
func (st *stack) listenTLS(ctx context.Context, s tlsSettings, home string) error {
	if s.listen == "" {
		return nil
	}
	cert, err := loadOrMakeCert(s, home)
	if err != nil {
		return fmt.Errorf("sip.tls_listen %s: %w", s.listen, err)
	}
	host, port, err := net.SplitHostPort(s.listen)
	if err != nil {
		return fmt.Errorf("sip.tls_listen %s: %w", s.listen, err)
	}
	if host == "" {
		host = "0.0.0.0"
	}
	lc := net.ListenConfig{}
	tl, err := lc.Listen(ctx, "tcp4", net.JoinHostPort(host, port))
	if err != nil {
		tl, err = lc.Listen(ctx, "tcp4", net.JoinHostPort(host, "0"))
	}
	if err != nil {
		return fmt.Errorf("sip.tls_listen %s: %w", s.listen, err)
	}
	st.tlsLn = tls.NewListener(st.guard.listener(tl), &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{cert}})
	st.tlsPort = tl.Addr().(*net.TCPAddr).Port
	return nil
}

// serveTLS runs the TLS listener when there is one.
func (st *stack) serveTLS() {
	if st.tlsLn != nil {
		go func() { _ = st.srv.ServeTLS(st.tlsLn) }()
	}
}

func (st *stack) closeTLS() {
	if st.tlsLn != nil {
		st.tlsLn.Close()
	}
}

// loadOrMakeCert reads sip.tls_cert_file and sip.tls_key_file, or the
// certificate kept in the home, making that one when it is missing.
func loadOrMakeCert(s tlsSettings, home string) (tls.Certificate, error) {
	if s.cert != "" {
		c, err := tls.LoadX509KeyPair(s.cert, s.key)
		if err != nil {
			return tls.Certificate{}, fmt.Errorf("certificate %s and key %s: %w", s.cert, s.key, err)
		}
		return c, nil
	}
	if home == "" {
		certPEM, keyPEM, err := makeCert()
		if err != nil {
			return tls.Certificate{}, err
		}
		return tls.X509KeyPair(certPEM, keyPEM)
	}
	cf, kf := filepath.Join(home, tlsCertName), filepath.Join(home, tlsKeyName)
	c, err := tls.LoadX509KeyPair(cf, kf)
	if err == nil {
		return c, nil
	}
	if !errors.Is(err, os.ErrNotExist) {
		return tls.Certificate{}, fmt.Errorf("the certificate kept in %s: %w", home, err)
	}
	certPEM, keyPEM, err := makeCert()
	if err != nil {
		return tls.Certificate{}, err
	}
	if err := os.WriteFile(kf, keyPEM, 0o600); err != nil {
		return tls.Certificate{}, err
	}
	if err := os.WriteFile(cf, certPEM, 0o644); err != nil {
		return tls.Certificate{}, err
	}
	return tls.X509KeyPair(certPEM, keyPEM)
}

// makeCert makes a self-signed certificate (ECDSA P-256) for this host's
// name, localhost and its addresses.
func makeCert() (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 126))
	if err != nil {
		return nil, nil, err
	}
	name, _ := os.Hostname()
	tpl := &x509.Certificate{SerialNumber: serial, Subject: pkix.Name{CommonName: "softphone " + name},
		DNSNames: []string{"localhost"}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(tlsCertLife),
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}}
	if name != "" && name != "localhost" {
		tpl.DNSNames = append(tpl.DNSNames, name)
	}
	if addrs, err := net.InterfaceAddrs(); err == nil {
		for _, a := range addrs {
			if ipn, ok := a.(*net.IPNet); ok {
				tpl.IPAddresses = append(tpl.IPAddresses, ipn.IP)
			}
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tpl, tpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, err
	}
	kb, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: kb}), nil
}

// checkSips refuses a sips: target on an account whose transport is not
// TLS: its request would leave in clear on the first hop.
func checkSips(target sip.Uri, a store.Account) error {
	if strings.EqualFold(target.Scheme, "sips") && a.Transport != "tls" {
		return ErrSipsNeedsTLS
	}
	return nil
}
