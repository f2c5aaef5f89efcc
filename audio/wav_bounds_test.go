package audio

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
)

// fileTranscriber is a recogniser that only notes how long each mono file
// it is given is (read from the file's size, not its header).
type fileTranscriber struct {
	mu     sync.Mutex
	frames []int64
}

func (ft *fileTranscriber) Transcribe(ctx context.Context, wavPath string) ([]Segment, error) {
	st, err := os.Stat(wavPath)
	if err != nil {
		return nil, err
	}
	ft.mu.Lock()
	ft.frames = append(ft.frames, (st.Size()-44)/2)
	ft.mu.Unlock()
	return []Segment{{StartS: 0, EndS: 1, Text: "heard"}}, nil
}

// allocated runs f and says how many bytes of heap it allocated in all.
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// lie sets the data (and RIFF) length of a canonical 44-byte header.
func lie(t *testing.T, path string, dataLen uint32) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], dataLen+36)
	f.WriteAt(b[:], 4)
	binary.LittleEndian.PutUint32(b[:], dataLen)
	if _, err := f.WriteAt(b[:], 40); err != nil {
		t.Fatal(err)
	}
}

// sparseRecording makes a stereo recording of dataLen bytes whose first
// second holds a tone on the far end's channel and the rest is a hole
// (truncate: digital silence that takes no disk).
func sparseRecording(t *testing.T, dataLen int64) string {
	t.Helper()
	var ph float64
	path := stereoFile(t, nil, tone(1000, pcmRate, pcmRate, &ph))
	if err := os.Truncate(path, 44+dataLen); err != nil {
		t.Fatal(err)
	}
	lie(t, path, uint32(dataLen))
	return path
}

// TestTranscribeHeaderLongerThanFile: a header that says its data is 4 GB
// on a one-second file is transcribed as the second it holds, without the
// 4 GB the old reader allocated because the header said so.
func TestTranscribeHeaderLongerThanFile(t *testing.T) {
	var ph1, ph2 float64
	path := stereoFile(t, tone(440, pcmRate, pcmRate, &ph1), tone(1000, pcmRate, pcmRate, &ph2))
	lie(t, path, 0xFFFFFFF0)
	ft := &fileTranscriber{}
	var segs []Segment
	var err error
	n := allocated(func() { segs, err = TranscribeRecording(context.Background(), ft, path) })
	if err != nil {
		t.Fatal(err)
	}
	if n > 16<<20 {
		t.Errorf("allocated %d MB for a one-second file", n>>20)
	}
	if len(segs) != 2 || len(ft.frames) != 2 || ft.frames[0] != pcmRate || ft.frames[1] != pcmRate {
		t.Fatalf("segments %+v, channels of %v frames, want two of %d", segs, ft.frames, pcmRate)
	}
}

// TestTranscribeLongRecordingBoundedMemory: a recording of many minutes is
// streamed, not held: the heap it needs does not grow with its length.
func TestTranscribeLongRecordingBoundedMemory(t *testing.T) {
	const dataLen = 24 << 20 // 6.5 minutes of 16 kHz stereo
	path := sparseRecording(t, dataLen)
	ft := &fileTranscriber{}
	var segs []Segment
	var err error
	n := allocated(func() { segs, err = TranscribeRecording(context.Background(), ft, path) })
	if err != nil {
		t.Fatal(err)
	}
	if n > 16<<20 {
		t.Errorf("allocated %d MB for a %d MB recording", n>>20, dataLen>>20)
	}
	// The left channel is silent (not sent); the right one is whole.
	if len(segs) != 1 || segs[0].Speaker != SpeakerRemote || len(ft.frames) != 1 || ft.frames[0] != dataLen/4 {
		t.Fatalf("segments %+v, frames %v, want one channel of %d", segs, ft.frames, dataLen/4)
	}
}

// TestTranscribeRefusesOverlongRecording: a recording beyond the longest
// that is transcribed (a 3 GB file left from before, here sparse) is
// refused at once with an error that says why, not read into memory.
func TestTranscribeRefusesOverlongRecording(t *testing.T) {
	path := sparseRecording(t, 3<<30)
	ft := &fileTranscriber{}
	var err error
	n := allocated(func() { _, err = TranscribeRecording(context.Background(), ft, path) })
	if !errors.Is(err, ErrTranscribe) || !strings.Contains(err.Error(), "longer than") {
		t.Fatalf("error %v", err)
	}
	if n > 4<<20 || len(ft.frames) != 0 {
		t.Fatalf("allocated %d MB, transcribed %v", n>>20, ft.frames)
	}
}

// chunk is one RIFF chunk with its pad byte when its size is odd.
func chunk(id string, body []byte) []byte {
	b := append([]byte(id), 0, 0, 0, 0)
	binary.LittleEndian.PutUint32(b[4:], uint32(len(body)))
	b = append(b, body...)
	if len(body)%2 == 1 {
		b = append(b, 0)
	}
	return b
}

// TestReadWAVChunks: chunks in the orders real files have them, odd sizes
// with their pad byte, a chunk or data that claims more than the file holds,
// and a file cut short mid-frame.
func TestReadWAVChunks(t *testing.T) {
	h := wavHeader(8000, 2, 0)
	fmtc := h[12:36]                                  // "fmt " chunk of 16 bytes
	fmt18 := chunk("fmt ", append(h[20:36:36], 0, 0)) // with cbSize, as some writers do
	pcm := []byte{1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0}
	riff := func(chunks ...[]byte) []byte {
		b := []byte("RIFF\x00\x00\x00\x00WAVE")
		for _, c := range chunks {
			b = append(b, c...)
		}
		binary.LittleEndian.PutUint32(b[4:], uint32(len(b)-8))
		return b
	}
	lying := func(id string, n uint32, body []byte) []byte {
		b := append([]byte(id), 0, 0, 0, 0)
		binary.LittleEndian.PutUint32(b[4:], n)
		return append(b, body...)
	}
	want := [][]int16{{1, 3, 5}, {2, 4, 6}}
	for _, c := range []struct {
		name   string
		file   []byte
		frames int // -1: an error
	}{
		{"LIST before fmt and data", riff(chunk("LIST", []byte("INFOISFT\x05\x00\x00\x00Lavf\x00")), fmtc, chunk("LIST", []byte("INFO")), chunk("data", pcm)), 3},
		{"odd junk chunk with pad byte", riff(fmtc, chunk("junk", []byte{9, 9, 9}), chunk("data", pcm)), 3},
		{"fmt of 18 bytes", riff(fmt18, chunk("data", pcm)), 3},
		{"data claims 4 GB", riff(fmtc, lying("data", 0xFFFFFFFF, pcm)), 3},
		{"cut mid-frame", riff(fmtc, lying("data", 12, pcm[:10])), 2},
		{"LIST claims 4 GB", riff(fmtc, lying("LIST", 0xFFFFFFF0, []byte("INFO")), chunk("data", pcm)), -1},
		{"data before fmt", riff(chunk("data", pcm), fmtc), -1},
		{"fmt cut short", riff(lying("fmt ", 16, h[20:28])), -1},
	} {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "f.wav")
			if err := os.WriteFile(path, c.file, 0o600); err != nil {
				t.Fatal(err)
			}
			var rate int
			var ch [][]int16
			var err error
			n := allocated(func() { rate, ch, err = readWAV(path) })
			if n > 1<<20 {
				t.Errorf("allocated %d KB for %d bytes", n>>10, len(c.file))
			}
			if c.frames < 0 {
				if err == nil {
					t.Fatalf("read %v", ch)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if rate != 8000 || len(ch) != 2 || len(ch[0]) != c.frames || len(ch[1]) != c.frames {
				t.Fatalf("rate %d channels %v", rate, ch)
			}
			for i := 0; i < c.frames; i++ {
				if ch[0][i] != want[0][i] || ch[1][i] != want[1][i] {
					t.Fatalf("channels %v", ch)
				}
			}
		})
	}
}

// TestHTTPTranscriberStreamsTheFile: a long channel is sent from the disk
// with its length, not built up in memory first (the old request body was
// a bytes.Buffer holding the whole file).
func TestHTTPTranscriberStreamsTheFile(t *testing.T) {
	const dataLen = 32 << 20 // 17 minutes of 16 kHz mono
	path := filepath.Join(t.TempDir(), "remote.wav")
	if err := os.WriteFile(path, wavHeader(pcmRate, 1, dataLen), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(path, 44+dataLen); err != nil {
		t.Fatal(err)
	}
	type got struct {
		length, file int64
		err          error
	}
	seen := make(chan got, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g := got{length: r.ContentLength}
		_, params, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
		mr := multipart.NewReader(r.Body, params["boundary"])
		for {
			p, err := mr.NextPart()
			if err != nil {
				if err != io.EOF {
					g.err = err
				}
				break
			}
			n, _ := io.Copy(io.Discard, p)
			if p.FormName() == "file" {
				g.file = n
			}
		}
		seen <- g
		io.WriteString(w, `{"text":"long","duration":1000,"segments":[{"start":1,"end":2,"text":"long"}]}`)
	}))
	defer srv.Close()
	var segs []Segment
	var err error
	n := allocated(func() { segs, err = HTTPTranscriber{URL: srv.URL, Key: "k"}.Transcribe(context.Background(), path) })
	if err != nil {
		t.Fatal(err)
	}
	g := <-seen
	if g.err != nil || g.file != 44+dataLen || g.length <= g.file || len(segs) != 1 {
		t.Fatalf("server got %+v, segments %+v", g, segs)
	}
	if n > 8<<20 {
		t.Errorf("allocated %d MB to send a %d MB file", n>>20, dataLen>>20)
	}
}

// TestSqueezeFileStreams: pocketsphinx's squeezed copy of a long channel is
// made a frame at a time (same samples and cuts as squeezeSilence on the
// whole), and of a header that lies, only what the file holds.
func TestSqueezeFileStreams(t *testing.T) {
	// Sound and quiet stretches of many lengths, across read buffers.
	var pcm []int16
	var ph float64
	for i, n := range []int{0, 100, 7000, 3199, 3200, 3201, 6400, 6401, 50000, 17, 320, 9999} {
		pcm = append(pcm, make([]int16, n)...)
		pcm = append(pcm, tone(500, pcmRate, 320*(i%3+1)+i, &ph)...)
	}
	pcm = append(pcm, make([]int16, 40000)...)
	path := filepath.Join(t.TempDir(), "mono.wav")
	w, err := createWAV(path, pcmRate, 1)
	if err != nil {
		t.Fatal(err)
	}
	w.write(pcm)
	if _, err := w.close(); err != nil {
		t.Fatal(err)
	}
	lie(t, path, 0xFFFFFFFE)
	var sq squeeze
	var out string
	var cleanup func()
	n := allocated(func() { sq, out, cleanup, err = squeezeFile(path) })
	if err != nil {
		t.Fatal(err)
	}
	defer cleanup()
	if n > 4<<20 {
		t.Errorf("allocated %d MB", n>>20)
	}
	want := squeezeSilence(pcm, pcmRate)
	if old := squeezeWhole(pcm, pcmRate); !slices.Equal(old.pcm, want.pcm) || !slices.Equal(old.cuts, want.cuts) {
		t.Fatalf("streamed squeeze %d samples, cuts %v; on the whole %d, %v", len(want.pcm), want.cuts, len(old.pcm), old.cuts)
	}
	_, got, err := readWAV(out)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got[0], want.pcm) || !slices.Equal(sq.cuts, want.cuts) || len(want.cuts) != 4 {
		t.Fatalf("squeezed %d samples with cuts %v, want %d with %v", len(got[0]), sq.cuts, len(want.pcm), want.cuts)
	}
}

// TestSqueezeLowRateEnds: a file that says it holds 40 Hz audio made the
// squeeze's frame 0 samples long and pocketsphinx's preparation spin
// forever; such rates are refused, and the squeeze itself still ends.
func TestSqueezeLowRateEnds(t *testing.T) {
	sq := squeezeSilence(make([]int16, 1000), 40)
	if len(sq.pcm) >= 1000 {
		t.Fatalf("not squeezed: %d", len(sq.pcm))
	}
	path := filepath.Join(t.TempDir(), "slow.wav")
	os.WriteFile(path, append(wavHeader(40, 1, 8), 0, 0, 0, 0, 0, 0, 0, 0), 0o600)
	if _, _, _, err := squeezeFile(path); !errors.Is(err, ErrTranscribe) {
		t.Fatalf("error %v", err)
	}
}

// squeezeWhole is squeezeSilence as it was before it streamed, on the
// whole channel in memory: the streaming one must give the same.
func squeezeWhole(pcm []int16, rate int) squeeze {
	var out squeeze
	quiet := func(f []int16) bool {
		for _, v := range f {
			if v > squeezeQuiet || v < -squeezeQuiet {
				return false
			}
		}
		return true
	}
	keep := squeezeKeep * rate / pcmRate
	frame := squeezeFrame * rate / pcmRate
	i := 0
	for i < len(pcm) {
		j := i
		for j < len(pcm) && quiet(pcm[j:min(j+frame, len(pcm))]) {
			j = min(j+frame, len(pcm))
		}
		if j-i > 2*keep {
			out.pcm = append(out.pcm, pcm[i:i+keep]...)
			out.cuts = append(out.cuts, squeezeCut{at: float64(len(out.pcm)) / float64(rate), removed: float64(j-i-2*keep) / float64(rate)})
			out.pcm = append(out.pcm, pcm[j-keep:j]...)
		} else {
			out.pcm = append(out.pcm, pcm[i:j]...)
		}
		if j >= len(pcm) {
			break
		}
		k := min(j+frame, len(pcm))
		out.pcm = append(out.pcm, pcm[j:k]...)
		i = k
	}
	return out
}

// TestWAVWriterStopsAtTheRIFFLimit: a recording that reaches the 4 GB a
// WAV file can describe (18.6 hours of a call; here a sparse file written
// from just below it) stops with an error, and its header still tells the
// truth; before, the 32-bit lengths wrapped round and said it held seconds.
func TestWAVWriterStopsAtTheRIFFLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "long.wav")
	w, err := createWAV(path, pcmRate, 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.w.Flush(); err != nil {
		t.Fatal(err)
	}
	frame := make([]int16, 2*frameLen) // 20 ms of stereo: 1280 bytes
	start := w.maxData() - 3*2*int64(len(frame)) + 4
	if _, err := w.f.Seek(44+start, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	w.n = uint32(start)
	var werr error
	writes := 0
	for ; writes < 10 && werr == nil; writes++ {
		werr = w.write(frame)
	}
	if !errors.Is(werr, ErrRecording) || writes != 3 {
		t.Fatalf("%d writes, then %v", writes, werr)
	}
	size, err := w.close()
	if err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	h := make([]byte, 44)
	f, _ := os.Open(path)
	f.ReadAt(h, 0)
	f.Close()
	riff, data := int64(binary.LittleEndian.Uint32(h[4:])), int64(binary.LittleEndian.Uint32(h[40:]))
	if size != st.Size() || data != st.Size()-44 || riff != data+36 || data < 1<<32-2000 {
		t.Fatalf("file of %d bytes, close says %d, header RIFF %d data %d", st.Size(), size, riff, data)
	}
}

// TestHTTPTranscriberErrorHidesTheKey: a recogniser that quotes the key it
// refused in its answer does not get the key into the error (which is kept
// with the transcript in the database and shown on the page).
func TestHTTPTranscriberErrorHidesTheKey(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		http.Error(w, `{"error":{"message":"Incorrect API key provided: `+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")+`"}}`, http.StatusUnauthorized)
	}))
	defer srv.Close()
	var ph float64
	path := stereoFile(t, nil, tone(1000, pcmRate, pcmRate/10, &ph))
	_, err := TranscribeRecording(context.Background(), HTTPTranscriber{URL: srv.URL, Key: "sk-secret-4711"}, path)
	if !errors.Is(err, ErrTranscribe) || !strings.Contains(err.Error(), "401") || strings.Contains(err.Error(), "4711") {
		t.Fatalf("error %v", err)
	}
}
