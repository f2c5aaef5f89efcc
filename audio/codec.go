package audio

import "strings"

// Codec is one RTP payload format as negotiated in SDP (RFC 3551, RFC 4566).
type Codec struct {
	Name      string // PCMU, PCMA, G722, opus, telephone-event
	PT        uint8  // payload type
	ClockRate uint32 // SDP clock rate (G.722 says 8000 though it is 16 kHz audio, RFC 3551 4.5.2)
	Channels  uint16 // 1, or 2 for opus
	Fmtp      string // a=fmtp parameters, empty when none
}

// Direction is the SDP media direction of a session (RFC 3264 5.1, 8.4).
type Direction int

// Media directions. Hold is sendonly (or inactive), resume is sendrecv.
const (
	SendRecv Direction = iota
	SendOnly
	RecvOnly
	Inactive
)

// String gives the SDP attribute name of the direction.
func (d Direction) String() string {
	switch d {
	case SendOnly:
		return "sendonly"
	case RecvOnly:
		return "recvonly"
	case Inactive:
		return "inactive"
	}
	return "sendrecv"
}

// Well-known codecs of RFC 3551 and the dynamic ones we offer.
var (
	CodecPCMU = Codec{Name: "PCMU", PT: 0, ClockRate: 8000, Channels: 1}
	CodecPCMA = Codec{Name: "PCMA", PT: 8, ClockRate: 8000, Channels: 1}
	CodecG722 = Codec{Name: "G722", PT: 9, ClockRate: 8000, Channels: 1}
	CodecOpus = Codec{Name: "opus", PT: 111, ClockRate: 48000, Channels: 2, Fmtp: "minptime=10;useinbandfec=1"}
	// CodecTelephoneEvent is RFC 4733 DTMF.
	CodecTelephoneEvent = Codec{Name: "telephone-event", PT: 101, ClockRate: 8000, Channels: 1, Fmtp: "0-16"}
)

// CodecsByPriority returns the audio codecs named in prio (settings
// audio.codecs, matched without regard to case), in that order, followed by
// telephone-event. Unknown names are skipped; an empty list gives the default
// order PCMU, PCMA, G722, opus.
func CodecsByPriority(prio []string) []Codec {
	all := []Codec{CodecPCMU, CodecPCMA, CodecG722, CodecOpus}
	if len(prio) == 0 {
		return append(all, CodecTelephoneEvent)
	}
	var out []Codec
	seen := map[string]bool{}
	for _, name := range prio {
		for _, c := range all {
			if strings.EqualFold(c.Name, name) && !seen[c.Name] {
				seen[c.Name] = true
				out = append(out, c)
			}
		}
	}
	return append(out, CodecTelephoneEvent)
}
