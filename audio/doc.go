// Package audio is every sound of a call: RTP sessions toward the PBX, codecs
// (PCMU, PCMA, G.722, Opus), jitter smoothing, RFC 4733 DTMF, the conference
// mix, recording, transcription of recordings, and the WebRTC bridge to the
// browser tab that is the phone's speaker and microphone (pion/webrtc). It
// imports nothing of ours.
package audio
