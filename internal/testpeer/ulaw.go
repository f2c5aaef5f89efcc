package testpeer

import "math"

// ulawTone makes G.711 u-law bytes of a sine (ITU-T G.711), for SIPp's
// rtp_stream which sends raw payload bytes.
func ulawTone(hz float64, secs int) []byte {
	out := make([]byte, 8000*secs)
	for i := range out {
		out[i] = linearToUlaw(int16(16000 * math.Sin(2*math.Pi*hz*float64(i)/8000)))
	}
	return out
}

func linearToUlaw(s int16) byte {
	const bias, clip = 0x84, 32635
	x := int(s)
	sign := 0
	if x < 0 {
		x, sign = -x, 0x80
	}
	if x > clip {
		x = clip
	}
	x += bias
	exp := 7
	for mask := 0x4000; x&mask == 0 && exp > 0; mask >>= 1 {
		exp--
	}
	mant := (x >> (exp + 3)) & 0x0f
	return ^byte(sign | exp<<4 | mant)
}

// ulawToLinear and alawToLinear decode one G.711 byte (ITU-T G.711).
func ulawToLinear(u byte) int16 {
	u = ^u
	t := (int(u&0x0f) << 3) + 0x84
	t <<= (u & 0x70) >> 4
	if u&0x80 != 0 {
		return int16(0x84 - t)
	}
	return int16(t - 0x84)
}

func alawToLinear(a byte) int16 {
	a ^= 0x55
	t := int(a&0x0f) << 4
	seg := (a & 0x70) >> 4
	switch seg {
	case 0:
		t += 8
	case 1:
		t += 0x108
	default:
		t += 0x108
		t <<= seg - 1
	}
	if a&0x80 != 0 {
		return int16(t)
	}
	return int16(-t)
}
