package audio

// RecordingFailer is a RecordingSink that hears when a recording stopped
// because its file could not be written (the wiring: the store's disk-full
// state, which puts up the page's banner).
type RecordingFailer interface {
	RecordingFailed(r RecordingInfo, err error)
}

// failed says that the recording stopped early: in the log, and to the sink.
func (r *recorder) failed(err error) {
	if r.log != nil {
		r.log.Warn("recording stopped: its file cannot be written", "recording", r.info.ID, "call", r.info.CallID, "err", err)
	}
	if f, ok := r.sink.(RecordingFailer); ok {
		f.RecordingFailed(r.info, err)
	}
}
