package store

import (
	"net"
	"strconv"
	"strings"
)

// Media encryption of an account (accounts[].media_encryption): none (clear
// RTP), sdes (SRTP keyed in SDP, RFC 4568) or dtls (DTLS-SRTP, RFC 5763).
const (
	MediaEncryptionNone = "none"
	MediaEncryptionSDES = "sdes"
	MediaEncryptionDTLS = "dtls"
)

// MediaEncryptions lists the allowed values of accounts[].media_encryption.
var MediaEncryptions = []string{MediaEncryptionNone, MediaEncryptionSDES, MediaEncryptionDTLS}

// normalizeSecurity fills an account's media_encryption (none) when left out.
func normalizeSecurity(a *Account) {
	if a.MediaEncryption == "" {
		a.MediaEncryption = MediaEncryptionNone
	}
}

// accountSecurity checks the media encryption and STUN settings of account i.
func (c *checker) accountSecurity(key func(string) string, a Account) {
	if a.MediaEncryption != "" {
		c.oneOf(key("media_encryption"), a.MediaEncryption, MediaEncryptions)
	}
	if a.MediaEncryptionRequired && (a.MediaEncryption == "" || a.MediaEncryption == MediaEncryptionNone) {
		c.fail(key("media_encryption_required"), "needs media_encryption sdes or dtls, got %q", a.MediaEncryption)
	}
	if a.StunServer != "" {
		c.hostPort(key("stun_server"), a.StunServer)
	}
}

// hostPort checks a host:port value (a name or an address, port 1-65535).
func (c *checker) hostPort(key, v string) {
	host, p, err := net.SplitHostPort(v)
	if err != nil || host == "" || strings.ContainsAny(host, " /@") {
		c.fail(key, "must be host:port, got %q", v)
		return
	}
	if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
		c.fail(key, "port must be 1-65535, got %q", p)
	}
}

// sipTLS checks the TLS listener settings: sip.tls_listen is empty (off) or
// host:port; a certificate file needs its key file and the other way round.
func (c *checker) sipTLS(s SIPSettings) {
	if s.TLSListen != "" {
		if _, p, err := net.SplitHostPort(s.TLSListen); err != nil {
			c.fail("sip.tls_listen", "must be host:port or empty, got %q", s.TLSListen)
		} else if n, err := strconv.Atoi(p); err != nil || n < 0 || n > 65535 {
			c.fail("sip.tls_listen", "port must be 0-65535, got %q", p)
		}
	}
	if (s.TLSCertFile == "") != (s.TLSKeyFile == "") {
		c.fail("sip.tls_key_file", "go together with sip.tls_cert_file: set both or neither")
	}
}
