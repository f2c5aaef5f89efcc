package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strings"
)

// signingKey turns the keyring secret into the HMAC key, the way the
// Standard Webhooks reference libraries do: a "whsec_" prefix is dropped and
// the rest is base64-decoded. A secret that is not valid base64 (with or
// without the prefix) is used as it is, as bytes.
func signingKey(secret string) []byte {
	s := strings.TrimPrefix(secret, "whsec_")
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding} {
		if k, err := enc.DecodeString(s); err == nil && len(k) > 0 {
			return k
		}
	}
	return []byte(s)
}

// Sign is the Standard Webhooks signature header value:
// "v1," + base64(HMAC-SHA256(key, id + "." + timestamp + "." + body)).
func Sign(key []byte, id, timestamp string, body []byte) string {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id))
	m.Write([]byte{'.'})
	m.Write([]byte(timestamp))
	m.Write([]byte{'.'})
	m.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil))
}
