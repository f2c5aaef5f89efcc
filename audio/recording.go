package audio

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/google/uuid"
)

// RecordingInfo is one recording's row, saved through a RecordingSink.
type RecordingInfo struct {
	ID, CallID, SeanceID string
	Path                 string // relative to the home folder: recordings/<id>.wav
	Started              time.Time
	Duration             time.Duration
	Size                 int64 // bytes of the file
	Codec                string
}

// RecordingSink keeps the rows of recordings (the wiring adapts store.DB).
type RecordingSink interface {
	CreateRecording(ctx context.Context, r RecordingInfo) error
	UpdateRecording(ctx context.Context, r RecordingInfo) error
}

// recorder writes one call's stereo file on its own 20 ms clock.
type recorder struct {
	local, remote *fifo
	info          RecordingInfo
	home          string
	sink          RecordingSink
	onDone        func(RecordingInfo)
	w             *wavWriter
	done          chan struct{}
	wg            sync.WaitGroup
	once          sync.Once
	frames        int64
	err           error
	log           *slog.Logger // recording_fail.go
}

// StartRecording starts recording the call (modes none/all/on-demand are
// the caller's): a stereo WAV under <home>/recordings and a row through the
// engine's RecordingSink.
func (s *Session) StartRecording(ctx context.Context) (RecordingInfo, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return RecordingInfo{}, ErrClosed
	}
	if s.rec != nil {
		info := s.rec.info
		s.mu.Unlock()
		return info, fmt.Errorf("%w: call %s is already being recorded", ErrRecording, s.cfg.CallID)
	}
	codec := s.codec.Name
	s.mu.Unlock()

	cfg := s.eng.config()
	id := uuid.NewString()
	info := RecordingInfo{ID: id, CallID: s.cfg.CallID, SeanceID: s.cfg.SeanceID,
		Path: filepath.Join("recordings", id+".wav"), Started: time.Now().UTC(), Codec: codec}
	dir := filepath.Join(cfg.Home, "recordings")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return RecordingInfo{}, fmt.Errorf("%w: %v", ErrRecording, err)
	}
	w, err := createWAV(filepath.Join(cfg.Home, info.Path), pcmRate, 2)
	if err != nil {
		return RecordingInfo{}, err
	}
	r := &recorder{local: newFIFO(300), remote: newFIFO(300), info: info, home: cfg.Home,
		sink: cfg.Recordings, onDone: cfg.OnRecording, w: w, done: make(chan struct{}), log: s.eng.log}
	if r.sink != nil {
		if err := r.sink.CreateRecording(ctx, info); err != nil {
			w.close()
			os.Remove(filepath.Join(r.home, info.Path))
			return RecordingInfo{}, fmt.Errorf("%w: save row: %v", ErrRecording, err)
		}
	}
	s.mu.Lock()
	if s.rec != nil || s.closed {
		s.mu.Unlock()
		r.start()
		r.stop(ctx)
		return RecordingInfo{}, fmt.Errorf("%w: call %s is already being recorded", ErrRecording, s.cfg.CallID)
	}
	s.rec = r
	s.mu.Unlock()
	r.start()
	return info, nil
}

// StopRecording ends the recording, completes the file and updates its row.
func (s *Session) StopRecording(ctx context.Context) (RecordingInfo, error) {
	s.mu.Lock()
	r := s.rec
	s.rec = nil
	s.mu.Unlock()
	if r == nil {
		return RecordingInfo{}, ErrNotRecording
	}
	return r.stop(ctx)
}

// Recording reports the running recording, if any.
func (s *Session) Recording() (RecordingInfo, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rec == nil {
		return RecordingInfo{}, false
	}
	return s.rec.info, true
}

func (r *recorder) start() {
	r.wg.Add(1)
	go r.loop()
}

func (r *recorder) loop() {
	defer r.wg.Done()
	tk := time.NewTicker(frameMs * time.Millisecond)
	defer tk.Stop()
	l, rt := make([]int16, frameLen), make([]int16, frameLen)
	st := make([]int16, 2*frameLen)
	for {
		select {
		case <-r.done:
			return
		case <-tk.C:
		}
		clear(l)
		clear(rt)
		r.local.popPrimed(l)
		r.remote.popPrimed(rt)
		for i := range l {
			st[2*i], st[2*i+1] = l[i], rt[i]
		}
		if err := r.w.write(st); err != nil {
			// The disk is full (or the file is gone): the recording stops
			// here, cleanly, instead of failing 50 times a second; stop
			// completes the file with what was written (issue 14).
			r.err = err
			r.failed(err)
			return
		}
		r.frames++
	}
}

// stop finishes the file and the row; safe to call more than once.
func (r *recorder) stop(ctx context.Context) (RecordingInfo, error) {
	var err error
	r.once.Do(func() {
		close(r.done)
		r.wg.Wait()
		size, cerr := r.w.close()
		r.info.Size = size
		r.info.Duration = time.Duration(r.frames) * frameMs * time.Millisecond
		err = r.err
		if err == nil {
			err = cerr
		}
		if r.sink != nil {
			if uerr := r.sink.UpdateRecording(ctx, r.info); uerr != nil && err == nil {
				err = uerr
			}
		}
		if err != nil {
			err = fmt.Errorf("%w: %v", ErrRecording, err)
		}
		if r.onDone != nil {
			r.onDone(r.info)
		}
	})
	return r.info, err
}
