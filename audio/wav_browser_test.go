//go:build browser

package audio

// writeMonoWAV writes one channel as its own file (the browser tests' fake
// microphone); transcription streams its copies instead (wav.go).
func writeMonoWAV(path string, rate int, pcm []int16) error {
	w, err := createWAV(path, rate, 1)
	if err != nil {
		return err
	}
	if err := w.write(pcm); err != nil {
		w.close()
		return err
	}
	_, err = w.close()
	return err
}
