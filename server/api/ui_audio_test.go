package api

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// TestLongRecordingIsStreamed: the audio of a long recording is sent from
// the file as the client reads it. Served through fiber's net/http adaptor
// it was first read whole into memory, growing by doubling: one GET of a
// 128 MiB recording (33 minutes of the recorder's 16 kHz stereo) allocated
// about 900 MiB before the first byte left, and the player asks again at
// every seek.
func TestLongRecordingIsStreamed(t *testing.T) {
	e := newEnv(t)
	s := e.seed()
	p := filepath.Join(e.home, "recordings", s.recording.ID+".wav")
	head, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	const size = 128 << 20
	if err := os.Truncate(p, size); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	host := strings.TrimPrefix(e.base, "http://")
	conn, err := net.Dial("tcp4", host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	// As the player asks: from the start, to the end.
	fmt.Fprintf(conn, "GET /ui/recordings/%s/audio HTTP/1.1\r\nHost: %s\r\nRange: bytes=0-\r\n\r\n", s.recording.ID, host)
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	first := make([]byte, 1<<20)
	if _, err := io.ReadFull(res.Body, first); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if res.StatusCode != 206 || res.ContentLength != size || res.Header.Get("Content-Range") != "bytes 0-"+strconv.Itoa(size-1)+"/"+strconv.Itoa(size) ||
		res.Header.Get("Content-Type") != "audio/wav" {
		t.Fatalf("answer: %s %d %v", res.Status, res.ContentLength, res.Header)
	}
	if !bytes.Equal(first[:len(head)], head) || bytes.ContainsFunc(first[len(head):], func(r rune) bool { return r != 0 }) {
		t.Error("the first MiB is not the file's")
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 32<<20 {
		t.Errorf("reading the first MiB of a %d MiB recording allocated %d MiB", size>>20, grew>>20)
	}
}

// TestAudioRanges: a later part of the audio (the player's seek), several
// ranges at once (answered with the whole audio, RFC 9110 14.2: the
// document has no multipart/byteranges answer), the range unit's case,
// another unit, an empty suffix (206 with "bytes 32044-32043/32044"
// before), HEAD (the length, no body).
func TestAudioRanges(t *testing.T) {
	e := newEnv(t)
	s := e.seed()
	path := "/ui/recordings/" + s.recording.ID + "/audio"
	whole := e.get(path)
	if whole.status != 200 || len(whole.body) != s.audioLen {
		t.Fatalf("whole: %d %d bytes", whole.status, len(whole.body))
	}
	n := strconv.Itoa(s.audioLen)
	r := e.get(path, "Range: bytes=32000-")
	if r.status != 206 || !bytes.Equal(r.body, whole.body[32000:]) || r.header.Get("Content-Range") != "bytes 32000-"+strconv.Itoa(s.audioLen-1)+"/"+n {
		t.Errorf("seek: %d %d bytes %v", r.status, len(r.body), r.header)
	}
	r = e.get(path, "Range: bytes=-10")
	if r.status != 206 || !bytes.Equal(r.body, whole.body[s.audioLen-10:]) {
		t.Errorf("suffix: %d %d bytes %v", r.status, len(r.body), r.header)
	}
	r = e.get(path, "Range: bytes=0-0,100-199,5-5")
	if r.status != 200 || !bytes.Equal(r.body, whole.body) || r.header.Get("Content-Type") != "audio/wav" {
		t.Errorf("several ranges: %d %d bytes %v", r.status, len(r.body), r.header)
	}
	// The unit's name in any case; another unit is ignored (RFC 9110 14.1, 14.2).
	r = e.get(path, "Range: Bytes=100-199")
	if r.status != 206 || !bytes.Equal(r.body, whole.body[100:200]) {
		t.Errorf("Bytes=: %d %d bytes %v", r.status, len(r.body), r.header)
	}
	r = e.get(path, "Range: items=0-1")
	if r.status != 200 || !bytes.Equal(r.body, whole.body) {
		t.Errorf("another unit: %d %d bytes %v", r.status, len(r.body), r.header)
	}
	// A suffix of no bytes is unsatisfiable (RFC 9110 14.1.2).
	r = e.get(path, "Range: bytes=-0")
	if r.status != 416 || r.errMsg(t) != msgBadRange || r.header.Get("Content-Range") != "bytes */"+n {
		t.Errorf("bytes=-0: %d %v %s", r.status, r.header, r.body)
	}
	r = do(t, "HEAD", e.base+path, "", "Range: bytes=100-199")
	if r.status != 206 || len(r.body) != 0 || r.header.Get("Content-Length") != "100" || r.header.Get("Content-Range") != "bytes 100-199/"+n {
		t.Errorf("HEAD: %d %d bytes %v", r.status, len(r.body), r.header)
	}
}
