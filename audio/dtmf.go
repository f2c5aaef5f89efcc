package audio

import (
	"encoding/binary"
	"fmt"
)

// RFC 4733 2.3: a telephone-event payload is event (8 bits), E bit, R bit,
// volume (6 bits), duration (16 bits, timestamp units).
type dtmfEvent struct {
	event    uint8
	end      bool
	volume   uint8
	duration uint16
}

const dtmfDigits = "0123456789*#ABCD"

// dtmfCode maps a digit to its RFC 4733 3.2 event code.
func dtmfCode(d byte) (uint8, error) {
	switch {
	case d >= '0' && d <= '9':
		return d - '0', nil
	case d == '*':
		return 10, nil
	case d == '#':
		return 11, nil
	case d >= 'A' && d <= 'D':
		return 12 + d - 'A', nil
	case d >= 'a' && d <= 'd':
		return 12 + d - 'a', nil
	}
	return 0, fmt.Errorf("%w: %q", ErrBadDigit, d)
}

// dtmfDigit maps an event code back to its digit; 0 for codes beyond 15.
func dtmfDigit(code uint8) byte {
	if int(code) < len(dtmfDigits) {
		return dtmfDigits[code]
	}
	return 0
}

func (e dtmfEvent) marshal() []byte {
	b := make([]byte, 4)
	b[0] = e.event
	b[1] = e.volume & 0x3f
	if e.end {
		b[1] |= 0x80
	}
	binary.BigEndian.PutUint16(b[2:], e.duration)
	return b
}

func parseDTMF(p []byte) (dtmfEvent, bool) {
	if len(p) < 4 {
		return dtmfEvent{}, false
	}
	return dtmfEvent{event: p[0], end: p[1]&0x80 != 0, volume: p[1] & 0x3f,
		duration: binary.BigEndian.Uint16(p[2:])}, true
}

// dtmfDetector reports each event once although RFC 4733 2.5.1 sends it
// many times: an event is known by its RTP timestamp. An event longer than
// the duration field can say (0xFFFF units: 8.2 s at 8 kHz, 1.4 s at the
// 48 kHz of telephone-event/48000) goes on in segments with timestamps of
// their own (RFC 4733 2.5.1.3): a segment that follows one of the same
// event that has not ended, no further than 0xFFFF units on and without
// the marker bit a new event carries (2.5.1.1), is the same key still
// held, not another press (2.5.2.3).
type dtmfDetector struct {
	seen   bool
	lastTS uint32
	event  uint8 // of the last timestamp
	ended  bool  // an end packet of it came
}

func (d *dtmfDetector) feed(ts uint32, marker bool, payload []byte) (byte, bool) {
	ev, ok := parseDTMF(payload)
	if !ok {
		return 0, false
	}
	if d.seen && d.lastTS == ts {
		d.ended = d.ended || ev.end
		return 0, false
	}
	more := d.seen && !marker && !d.ended && ev.event == d.event && ts-d.lastTS <= 0xFFFF
	d.seen, d.lastTS, d.event, d.ended = true, ts, ev.event, ev.end
	if more {
		return 0, false
	}
	digit := dtmfDigit(ev.event)
	return digit, digit != 0
}

// feedAll reads every event of a telephone-event packet and hands each new
// digit to digit. RFC 4733 2.5.1.5 packs consecutive, contiguous events
// into one packet: the first starts at the packet's RTP timestamp, each
// next one where the one before it ended (its start plus its duration),
// and every event but the last has ended. Each is fed to the detector
// with its own start, so each is a digit once; a packed packet comes again
// (RFC 4733 2.5.1.4 repeats the final packets), and its events that start
// before the last one seen were reported then.
func (d *dtmfDetector) feedAll(ts uint32, marker bool, payload []byte, digit func(byte)) {
	packed := len(payload) >= 8
	start := ts
	for i := 0; i+4 <= len(payload); i += 4 {
		ev := payload[i : i+4]
		if !(packed && d.seen && int32(start-d.lastTS) < 0) {
			if c, ok := d.feed(start, marker && i == 0, ev); ok {
				digit(c)
			}
		}
		start += uint32(binary.BigEndian.Uint16(ev[2:]))
	}
}
