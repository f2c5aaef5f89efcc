package sipua

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/softphone/softphone/audio"
	"github.com/softphone/softphone/store"
)

func TestParseCrypto(t *testing.T) {
	// RFC 4568 9.1's example key (30 bytes of key||salt).
	const k = "WVNfX19zZW1jdGwgKCkgewkyMjA7fQp9CnVubGVz"
	for _, tc := range []struct {
		v  string
		ok bool
	}{
		{"1 AES_CM_128_HMAC_SHA1_80 inline:" + k, true},
		{"1 AES_CM_128_HMAC_SHA1_80 inline:" + k + "|2^20", true},         // lifetime
		{"1 AES_CM_128_HMAC_SHA1_80 inline:" + k + "|2^20|1:4", false},    // MKI
		{"1 AES_CM_128_HMAC_SHA1_80 inline:" + k + "|1:4", false},         // MKI without lifetime
		{"1 AES_CM_128_HMAC_SHA1_80 inline:" + k + " KDR=1", false},       // session parameter
		{"1 AES_CM_128_HMAC_SHA1_80 inline:" + k + ";inline:" + k, false}, // two keys
		{"1 AES_256_CM_HMAC_SHA1_80 inline:" + k, false},                  // suite we do not offer
		{"1 AEAD_AES_128_GCM inline:" + k, false},                         // 30 bytes: GCM wants 28
		{"x AES_CM_128_HMAC_SHA1_80 inline:" + k, false},
		{"1 AES_CM_128_HMAC_SHA1_80 inline:!!!", false},
		{"1 AES_CM_128_HMAC_SHA1_80 key:" + k, false},
		{"1", false},
		{"", false},
	} {
		c, ok := parseCrypto(tc.v)
		if ok != tc.ok {
			t.Errorf("%q: ok %v", tc.v, ok)
		}
		if ok && (c.tag != 1 || len(c.key) != 16 || len(c.salt) != 14 || c.profile != audio.SRTPAES128CMSHA1_80) {
			t.Errorf("%q: %v %d %d", tc.v, c, len(c.key), len(c.salt))
		}
	}
	for _, s := range sdesSuites {
		c, err := newCrypto(7, s.name)
		if err != nil {
			t.Fatal(err)
		}
		back, ok := parseCrypto(c.value())
		if !ok || back.tag != 7 || !bytes.Equal(back.key, c.key) || !bytes.Equal(back.salt, c.salt) || back.profile != s.profile {
			t.Errorf("%s does not round-trip", s.name)
		}
		if strings.Contains(c.String(), "inline") {
			t.Errorf("String shows the key: %s", c)
		}
	}
	if _, err := newCrypto(1, "NULL"); !errors.Is(err, errNotEncrypted) {
		t.Errorf("unknown suite: %v", err)
	}
}

func TestRedactCryptoInTrace(t *testing.T) {
	c, _ := newCrypto(1, "AES_CM_128_HMAC_SHA1_80")
	msg := "INVITE sip:bob@x SIP/2.0\r\nContent-Type: application/sdp\r\n\r\nv=0\r\nm=audio 4000 RTP/SAVP 0\r\na=crypto:" +
		c.value() + "\r\nA=CRYPTO:2 AEAD_AES_128_GCM inline:c2VjcmV0c2VjcmV0c2VjcmV0c2VjcmV0\r\n"
	got := redact([]byte(msg))
	if strings.Contains(got, "inline") || strings.Contains(got, "c2VjcmV0") {
		t.Fatalf("key left in the trace:\n%s", got)
	}
	if !strings.Contains(got, "a=crypto:1 AES_CM_128_HMAC_SHA1_80 [redacted]\r\n") || !strings.Contains(got, "m=audio 4000 RTP/SAVP 0\r\n") {
		t.Fatalf("trace lost what it may show:\n%s", got)
	}
}

// TestSDESNegotiation walks offer and answer on both sides between two
// calls of ours, for each mode, without the network.
func TestSDESNegotiation(t *testing.T) {
	mk := func(mode string, required bool) *call {
		return &call{acc: store.Account{MediaEncryption: mode, MediaEncryptionRequired: required}}
	}
	sdp := func(sec localSec) remoteSDP {
		b := buildSDPSec("127.0.0.1", 4000, []audio.Codec{audio.CodecPCMU}, audio.SendRecv, 1, 1, sec)
		r, err := parseSDP(b)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	for _, tc := range []struct {
		name              string
		offerer, answerer *call
		proto             string // of the offer
		secure            bool
		answerErr         bool
	}{
		{"sdes to sdes", mk("sdes", false), mk("sdes", false), "RTP/AVP", true, false},
		{"sdes best effort to none", mk("sdes", false), mk("none", false), "RTP/AVP", false, false},
		{"sdes required to none", mk("sdes", true), mk("none", false), "RTP/SAVP", true, false},
		{"none to sdes required", mk("none", false), mk("sdes", true), "RTP/AVP", false, true},
		{"none to sdes", mk("none", false), mk("sdes", false), "RTP/AVP", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			off, err := tc.offerer.offerSec()
			if err != nil {
				t.Fatal(err)
			}
			r := sdp(off)
			if r.sec.proto != tc.proto {
				t.Fatalf("offer proto %s", r.sec.proto)
			}
			ans, akeys, err := tc.answerer.answerSec(r)
			if (err != nil) != tc.answerErr {
				t.Fatalf("answer: %v", err)
			}
			if err != nil {
				return
			}
			okeys, err := tc.offerer.answeredSec(sdp(ans))
			if err != nil {
				t.Fatalf("reading the answer: %v", err)
			}
			if (akeys != nil) != tc.secure || (okeys != nil) != tc.secure {
				t.Fatalf("keys: answerer %v, offerer %v", akeys, okeys)
			}
			if tc.secure && (!bytes.Equal(akeys.LocalKey, okeys.RemoteKey) || !bytes.Equal(okeys.LocalKey, akeys.RemoteKey) ||
				akeys.Profile != okeys.Profile) {
				t.Fatal("keys do not cross")
			}
			// A re-INVITE of the offerer repeats the agreed line: same keys.
			if tc.secure {
				again, _ := tc.offerer.offerSec()
				if len(again.crypto) != 1 || !bytes.Equal(again.crypto[0].key, okeys.LocalKey) {
					t.Fatalf("re-offer %v", again.crypto)
				}
				_, k2, err := tc.answerer.answerSec(sdp(again))
				if err != nil || !bytes.Equal(k2.LocalKey, akeys.LocalKey) {
					t.Fatalf("re-answer changed our key: %v", err)
				}
			}
		})
	}
	// A required account reading a clear answer fails.
	c := mk("sdes", true)
	if _, err := c.offerSec(); err != nil {
		t.Fatal(err)
	}
	if _, err := c.answeredSec(sdp(localSec{proto: protoAVP})); !errors.Is(err, errNotEncrypted) {
		t.Fatalf("clear answer to a required offer: %v", err)
	}
	// An RTP/SAVP offer without a usable line cannot be answered.
	if _, _, err := mk("none", false).answerSec(sdp(localSec{proto: protoSAVP})); !errors.Is(err, errNotEncrypted) {
		t.Fatalf("SAVP without crypto: %v", err)
	}
}
