package web

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/softphone/softphone/store"
)

// TestStrangersLargeBodyIsNotAwaited: a request without a session that
// announces a body above 64 KiB is answered 413 at once, before a byte of
// the body arrives (fasthttp reads a body whole, into a buffer of the
// announced size: at the server's 8 MiB each such connection held 8 MiB
// until its read limit ran out, 8 GiB for the 1,024 a port takes). The
// phone's own page still imports a file of contacts far above 64 KiB.
func TestStrangersLargeBodyIsNotAwaited(t *testing.T) {
	db, err := store.OpenDB(filepath.Join(t.TempDir(), "softphone.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	r := newRig(t, func(c *Config) { c.DB = db; c.Limits.Read = 3 * time.Second })
	for i := 0; i < 20; i++ {
		c := dialRaw(t, r.srv.Port())
		fmt.Fprintf(c, "POST /contacts/import HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: application/x-www-form-urlencoded\r\n"+
			"Content-Length: 8000000\r\nCookie: %s=forged\r\n\r\nfile=", r.srv.Port(), r.srv.sessionCookie())
		res, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusRequestEntityTooLarge {
			t.Fatalf("8,000,000 bytes announced without a session: %d", res.StatusCode)
		}
	}

	r.login()
	var vcf strings.Builder
	const n = 1000 // about 85 KiB
	for i := range n {
		fmt.Fprintf(&vcf, "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Person %d with a rather long name\r\nTEL:+49301234%05d\r\nEND:VCARD\r\n", i, i)
	}
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, _ := mw.CreateFormFile("file", "many.vcf")
	_, _ = fw.Write([]byte(vcf.String()))
	_ = mw.WriteField("csrf", r.csrf)
	_ = mw.Close()
	if buf.Len() <= strangerBodyLimit {
		t.Fatalf("import of %d bytes proves nothing", buf.Len())
	}
	res, body := r.do("POST", "/contacts/import", &buf, map[string]string{"Content-Type": mw.FormDataContentType(), "Origin": r.origin})
	if res.StatusCode != 200 || !strings.Contains(body, fmt.Sprintf("%d contacts imported", n)) {
		t.Fatalf("import of %d contacts: %d", n, res.StatusCode)
	}
}

// TestMalformedRequestNotEchoed: a request fasthttp cannot parse is
// answered "Bad Request"; its parse error quoted the request's headers
// back, the session cookie among them.
func TestMalformedRequestNotEchoed(t *testing.T) {
	r := newRig(t, nil)
	r.login()
	c := dialRaw(t, r.srv.Port())
	fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nCookie: %s=%s\r\nX-Odd: \x01\r\n\r\n", r.srv.Port(), r.cookie.Name, r.cookie.Value)
	res, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 400 || string(b) != "Bad Request" || strings.Contains(string(b), r.cookie.Value) {
		t.Fatalf("%d %q", res.StatusCode, b)
	}
}
