package audio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
)

// Pocketsphinx runs CMU PocketSphinx as a program on a 16 kHz mono WAV.
// Debian 12's `pocketsphinx` package ships pocketsphinx_continuous (0.8,
// word times as text with -time yes); PocketSphinx 5 ships `pocketsphinx`
// (JSON lines with word times). Whichever is installed is used.
type Pocketsphinx struct {
	Bin  string   // program; "" = pocketsphinx_continuous, else pocketsphinx
	Args []string // extra arguments (e.g. -hmm, -lm, -dict for another language)
}

// Transcribe implements Transcriber.
func (p Pocketsphinx) Transcribe(ctx context.Context, wavPath string) ([]Segment, error) {
	bin := p.Bin
	if bin == "" {
		if _, err := exec.LookPath("pocketsphinx_continuous"); err == nil {
			bin = "pocketsphinx_continuous"
		} else if _, err := exec.LookPath("pocketsphinx"); err == nil {
			bin = "pocketsphinx"
		} else {
			return nil, fmt.Errorf("%w: pocketsphinx is not installed (Debian: pocketsphinx pocketsphinx-en-us)", ErrTranscribe)
		}
	}
	sq, path, cleanup, err := squeezeFile(wavPath)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	segs, err := p.run(ctx, bin, path)
	for i := range segs {
		segs[i].StartS, segs[i].EndS = sq.original(segs[i].StartS), sq.original(segs[i].EndS)
	}
	return segs, err
}

// squeezeFile writes a copy of a mono WAV with its long silences squeezed
// (transcribe_squeeze.go) and returns it, its path and how to remove it.
func squeezeFile(wavPath string) (squeeze, string, func(), error) {
	d, err := openWAV(wavPath)
	if err != nil {
		return squeeze{}, "", nil, fmt.Errorf("%w: %v", ErrTranscribe, err)
	}
	defer d.Close()
	if d.channels != 1 {
		return squeeze{}, wavPath, func() {}, nil // not ours to change: the recogniser gets it as it is
	}
	// Beside the channel's file: in the transcript's own temporary folder
	// (transcribe_temp.go), not in os.TempDir().
	dir, err := os.MkdirTemp(filepath.Dir(wavPath), ".sphinx-")
	if err != nil {
		return squeeze{}, "", nil, tempError(err)
	}
	path := filepath.Join(dir, "squeezed.wav")
	fail := func(err error) (squeeze, string, func(), error) {
		os.RemoveAll(dir)
		return squeeze{}, "", nil, tempError(err)
	}
	w, err := createWAV(path, d.rate, 1)
	if err != nil {
		return fail(err)
	}
	// A frame at a time from the file to the copy: bounded memory however
	// long the channel is.
	z := newSqueezer(d.rate, w.write)
	buf := make([]int16, z.frame*max(1, 16384/z.frame))
	for {
		n, rerr := d.next(buf)
		for i := 0; i < n; i += z.frame {
			z.push(buf[i:min(i+z.frame, n)])
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			w.close()
			return fail(rerr)
		}
	}
	z.end()
	if _, err := w.close(); z.err != nil || err != nil {
		return fail(errors.Join(z.err, err))
	}
	return squeeze{cuts: z.cuts}, path, func() { os.RemoveAll(dir) }, nil
}

// run runs the program on one mono WAV and reads its words.
func (p Pocketsphinx) run(ctx context.Context, bin, wavPath string) ([]Segment, error) {
	var args []string
	json5 := !strings.HasSuffix(bin, "_continuous")
	if json5 {
		args = append(append([]string{}, p.Args...), "single", wavPath)
	} else {
		args = append([]string{"-infile", wavPath, "-time", "yes", "-logfn", "/dev/null"}, p.Args...)
	}
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.SysProcAttr = sphinxProcAttr()
	// The death signal follows the thread that starts the program: this
	// goroutine keeps it until the program has ended.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Start()
	if err == nil {
		if err := sphinxStarted(cmd.Process); err != nil {
			// Not fatal: the transcript is made all the same.
			slog.Warn("transcripts: the recogniser may outlive the phone", "err", err)
		}
		err = cmd.Wait()
	}
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 300 {
			msg = msg[len(msg)-300:]
		}
		return nil, fmt.Errorf("%w: %s: %v: %s", ErrTranscribe, bin, err, msg)
	}
	if json5 {
		return parseSphinxJSON(stdout.Bytes())
	}
	return parseSphinxTimes(stdout.Bytes()), nil
}

// sphinxFiller says whether a token is a marker, not a word.
func sphinxFiller(w string) bool {
	return w == "" || strings.HasPrefix(w, "<") || strings.HasPrefix(w, "[") || strings.HasPrefix(w, "++")
}

// sphinxWord drops the alternative-pronunciation suffix: "really(2)" -> "really".
func sphinxWord(w string) string {
	if i := strings.IndexByte(w, '('); i > 0 {
		return w[:i]
	}
	return w
}

// parseSphinxTimes reads pocketsphinx_continuous -time yes output: per
// utterance a hypothesis line, then "word start end confidence" lines from
// <s> to </s>. Each utterance is one segment.
func parseSphinxTimes(out []byte) []Segment {
	var segs []Segment
	var cur *Segment
	var conf float64
	var n int
	flush := func() {
		if cur != nil && cur.Text != "" {
			if n > 0 {
				cur.Confidence = conf / float64(n)
			}
			segs = append(segs, *cur)
		}
		cur, conf, n = nil, 0, 0
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) != 4 {
			flush() // a hypothesis line: the next utterance begins
			continue
		}
		b, err1 := strconv.ParseFloat(f[1], 64)
		e, err2 := strconv.ParseFloat(f[2], 64)
		p, err3 := strconv.ParseFloat(f[3], 64)
		if err1 != nil || err2 != nil || err3 != nil {
			flush() // a hypothesis line of four words
			continue
		}
		switch {
		case f[0] == "<s>":
			flush()
			cur = &Segment{StartS: b, EndS: e}
		case f[0] == "</s>":
			flush()
		case sphinxFiller(f[0]):
		default:
			if cur == nil {
				cur = &Segment{StartS: b}
			}
			if cur.Text == "" {
				cur.StartS = b
			} else {
				cur.Text += " "
			}
			cur.Text += sphinxWord(f[0])
			cur.EndS = e
			conf += p
			n++
		}
	}
	flush()
	return segs
}

// parseSphinxJSON reads PocketSphinx 5 output: one JSON object per utterance,
// {"b":start,"d":duration,"p":prob,"t":text,"w":[{"b","d","p","t"}...]}.
func parseSphinxJSON(out []byte) ([]Segment, error) {
	type word struct {
		B, D, P float64
		T       string
	}
	var segs []Segment
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var u struct {
			B, D, P float64
			T       string
			W       []word
		}
		if err := dec.Decode(&u); err != nil {
			return nil, fmt.Errorf("%w: pocketsphinx output: %v", ErrTranscribe, err)
		}
		s := Segment{StartS: u.B, EndS: u.B + u.D, Confidence: u.P}
		var words []string
		for _, w := range u.W {
			if sphinxFiller(w.T) {
				continue
			}
			if len(words) == 0 {
				s.StartS = w.B
			}
			words = append(words, sphinxWord(w.T))
			s.EndS = w.B + w.D
		}
		s.Text = strings.Join(words, " ")
		if s.Text == "" {
			s.Text = strings.TrimSpace(u.T)
		}
		if s.Text != "" {
			segs = append(segs, s)
		}
	}
	return segs, nil
}
