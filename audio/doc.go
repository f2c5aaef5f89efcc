// Package audio is every sound of a call: RTP sessions toward the PBX, codecs
// (PCMU, PCMA, G.722, Opus), jitter smoothing, RFC 4733 DTMF, the conference
// mix, recording, transcription of recordings, and the WebRTC bridge to the
// browser tab that is the phone's speaker and microphone (pion/webrtc). It
// imports nothing of ours.
//
// Media path. Inside, audio is 16 kHz signed 16-bit mono in 20 ms frames.
// PBX -> tab: packets are put back in order (a reorder step of two packets,
// no added delay when in order), then passed through to the tab unchanged
// when the tab's codec is the call's and the tab hears only this call;
// otherwise decoded and mixed by the bridge's 20 ms clock and encoded in the
// tab's codec. Tab -> PBX: the same, the other way; when nothing comes from
// the tab (no tab, muted, on hold with sendonly) the session sends silence
// every 20 ms so RTP timers and NAT bindings stay alive. Sequence numbers
// and timestamps toward the tab and toward the PBX are our own, continuous
// across re-INVITEs, hold, and calls taking turns.
//
// Directions (Session.SetDirection) are those of our SDP: SendOnly is how we
// hold (the far end is not heard, silence is sent instead of the
// microphone), RecvOnly is being held (we hear, send nothing), Inactive is
// neither.
//
// Recordings are RIFF WAVE, 16-bit signed little-endian PCM, 16 kHz, two
// channels: left = this side (the tab's microphone as sent; silence while
// muted), right = the far end. Files are <home>/recordings/<id>.wav (mode
// 0600); rows go through RecordingSink. Transcripts are made per channel
// (left = speaker "local", right = "remote") by a Transcriber.
package audio
