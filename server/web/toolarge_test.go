package web

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestImportOverLimitRefusedWhole: a contacts file over 4 MiB (below the
// server's 8 MiB body limit) is refused whole, in words. It was cut at
// 4 MiB in silence: the contacts before the cut were imported, the rest
// lost, and the page said "n contacts imported".
func TestImportOverLimitRefusedWhole(t *testing.T) {
	r, db := dbRig(t)
	var vcf bytes.Buffer
	for i := 0; vcf.Len() <= importMax+importMax/4; i++ {
		fmt.Fprintf(&vcf, "BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Person %d with a rather long name\r\nTEL:+49301%07d\r\nEND:VCARD\r\n", i, i)
	}
	var buf bytes.Buffer
	mw := multipart.NewWriter(&buf)
	fw, _ := mw.CreateFormFile("file", "many.vcf")
	_, _ = fw.Write(vcf.Bytes())
	_ = mw.WriteField("csrf", r.csrf)
	_ = mw.Close()
	res, body := r.do("POST", "/contacts/import", &buf, map[string]string{"Content-Type": mw.FormDataContentType(), "Origin": r.origin})
	if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(body, `id="err-file">The file is larger than 4 MB: nothing was imported.`) {
		t.Fatalf("a file of %d bytes: %d, refused in words: %v", vcf.Len(), res.StatusCode, strings.Contains(body, `id="err-file">The file is larger`))
	}
	list, err := db.ListContacts(context.Background(), "")
	if err != nil || len(list) != 0 {
		t.Fatalf("contacts after the refusal: %d %v", len(list), err)
	}
}

// TestTooLargeBodyFromPageAnsweredInWords: a body over the server's limit
// from the phone's own page is answered 413 in the page's words (#flash),
// and the rest of the body, far more than httplimit's 1 MiB, is read and
// dropped: the answer was "Request Entity Too Large" (English, raw) and
// the connection was reset while the browser still sent, so Firefox,
// which reads no answer before its upload ends, said nothing at all.
func TestTooLargeBodyFromPageAnsweredInWords(t *testing.T) {
	r, _ := dbRig(t)
	const size, first = 9 << 20, 10_000
	c := dialRaw(t, r.srv.Port())
	_ = c.SetDeadline(time.Now().Add(20 * time.Second))
	fmt.Fprintf(c, "POST /contacts/import HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nContent-Type: multipart/form-data; boundary=x\r\n"+
		"HX-Request: true\r\nOrigin: %s\r\nX-CSRF-Token: %s\r\nCookie: %s=%s\r\nContent-Length: %d\r\n\r\n%s",
		r.srv.Port(), r.origin, r.csrf, r.cookie.Name, r.cookie.Value, size, strings.Repeat("x", first))
	br := bufio.NewReader(c)
	res, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	if res.StatusCode != http.StatusRequestEntityTooLarge || res.Header.Get("HX-Retarget") != "#flash" ||
		!strings.Contains(string(b), "That was too large for the phone: nothing was saved.") {
		t.Fatalf("answer %d %q %q", res.StatusCode, res.Header.Get("HX-Retarget"), b)
	}
	if _, err := c.Write(bytes.Repeat([]byte("x"), size-first)); err != nil {
		t.Fatalf("sending the rest of the body after the 413: %v", err)
	}
	_ = c.(*net.TCPConn).CloseWrite()
	if n, err := br.Read(make([]byte, 1)); n != 0 || !errors.Is(err, io.EOF) {
		t.Fatalf("after the whole body: %d bytes, %v (want the end of the connection, no reset)", n, err)
	}
}

// TestAliveTellsTheSession: GET /alive, which the page asks when its live
// stream breaks, is 204 for this run's session and the gate's 401 for a
// session it does not know (a page left from a run before).
func TestAliveTellsTheSession(t *testing.T) {
	r := newRig(t, nil)
	if res, _ := r.do("GET", "/alive", nil, nil); res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("without a session: %d", res.StatusCode)
	}
	r.login()
	if res, _ := r.do("GET", "/alive", nil, nil); res.StatusCode != http.StatusNoContent {
		t.Fatalf("with the session: %d", res.StatusCode)
	}
}
