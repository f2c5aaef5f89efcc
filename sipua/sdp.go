package sipua

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net"
	"strconv"
	"strings"

	"github.com/pion/sdp/v3"

	"github.com/softphone/softphone/audio"
)

// errNoCodec is an offer or answer without an audio codec we speak (488).
var errNoCodec = errors.New("no common audio codec")

// errHostAddr is a c= line naming a host instead of an address (parseSDP).
var errHostAddr = errors.New("sdp: connection address is a host name, not an IP address")

// remoteSDP is what we use of the other side's session description.
type remoteSDP struct {
	addr   *net.UDPAddr
	codecs []audio.Codec // in the order of the m= line, with its payload types
	dir    audio.Direction
	sec    mediaSec // proto and a=crypto lines (sdp_crypto.go)
	// The m= lines besides our audio one (video, a second audio, lines
	// rejected with port 0), in order; ours was at audioAt.
	others  []otherMedia
	audioAt int
	// The a=rtcp port (RFC 3605), 0 without one: RTCP goes to RTP + 1.
	rtcpPort int
}

// otherMedia is an m= line we do not use. An answer has as many m= lines
// as the offer, in its order, the ones it rejects with port 0 (RFC 3264
// 6), and later offers keep them (8): an answer with the audio line only
// to an offer of audio and video was refused by stacks that count them
// (pjsip's "media count mismatch": the call failed), and others took our
// audio line for the video one when video came first.
type otherMedia struct{ media, proto, format string }

// negotiated is the outcome of an offer/answer exchange (RFC 3264).
type negotiated struct {
	remote *net.UDPAddr
	codec  audio.Codec
	dtmfPT uint8 // telephone-event payload type; 0 when not negotiated
	rtcp   int   // the far end's a=rtcp port, 0 for RTP + 1 (RFC 3605)
	dir    audio.Direction
	keys   *audio.SRTPKeys // SRTP keys; nil for clear RTP (media_secure.go)
}

var staticPT = map[uint8]audio.Codec{0: audio.CodecPCMU, 8: audio.CodecPCMA, 9: audio.CodecG722}

// parseSDP reads the first audio m= line of body.
func parseSDP(body []byte) (remoteSDP, error) {
	body = sdpPart(body)
	var sd sdp.SessionDescription
	if err := sd.Unmarshal(body); err != nil {
		return remoteSDP{}, fmt.Errorf("sdp: %w", err)
	}
	var md *sdp.MediaDescription
	var others []otherMedia
	audioAt := 0
	for _, m := range sd.MediaDescriptions {
		if md == nil && m.MediaName.Media == "audio" && m.MediaName.Port.Value > 0 {
			md, audioAt = m, len(others)
			continue
		}
		o := otherMedia{media: m.MediaName.Media, proto: strings.Join(m.MediaName.Protos, "/"), format: "0"}
		if len(m.MediaName.Formats) > 0 {
			o.format = m.MediaName.Formats[0]
		}
		others = append(others, o)
	}
	if md == nil {
		return remoteSDP{}, fmt.Errorf("sdp: %w", errNoCodec)
	}
	ci := md.ConnectionInformation
	if ci == nil {
		ci = sd.ConnectionInformation
	}
	if ci == nil || ci.Address == nil {
		return remoteSDP{}, errors.New("sdp: no connection address")
	}
	host := ci.Address.Address
	if i := strings.IndexByte(host, '/'); i >= 0 {
		host = host[:i]
	}
	ip := net.ParseIP(host)
	if ip == nil {
		// RFC 4566 5.7 allows a host name here, but it is not looked up:
		// the lookup ran on the call's goroutine (a name whose servers
		// never answer stalled the call for the resolver's timeouts, its
		// ringing and hang-up waiting behind it) and it told the name's
		// owner, before anyone answered, that this phone exists and
		// where its resolver is. PBXs, SBCs and browsers write addresses.
		return remoteSDP{}, fmt.Errorf("%w: %q", errHostAddr, host)
	}
	r := remoteSDP{addr: &net.UDPAddr{IP: ip, Port: md.MediaName.Port.Value}, dir: audio.SendRecv, others: others, audioAt: audioAt}
	maps := map[uint8]audio.Codec{}
	fmtps := map[uint8]string{}
	for _, a := range md.Attributes {
		switch a.Key {
		case "rtpmap":
			pt, c, ok := parseRtpmap(a.Value)
			if ok {
				maps[pt] = c
			}
		case "rtcp":
			r.rtcpPort = rtcpPortOf(a.Value, ip)
		case "fmtp":
			// A payload type is 7 bits (RFC 3550 5.1, RFC 3551 6), as in
			// parseRtpmap: a=fmtp:256 wrapped to PCMU's 0, and our
			// answer gave PCMU the stranger's parameters.
			if sp := strings.IndexByte(a.Value, ' '); sp > 0 {
				if pt, err := strconv.Atoi(a.Value[:sp]); err == nil && pt >= 0 && pt <= 127 {
					fmtps[uint8(pt)] = a.Value[sp+1:]
				}
			}
		}
	}
	r.dir = directionOf(md.Attributes, sd.Attributes)
	r.sec = mediaSecOf(md, sd.Attributes)
	if host == "0.0.0.0" {
		r.dir = audio.Inactive // RFC 2543 hold
	}
	for _, f := range md.MediaName.Formats {
		n, err := strconv.Atoi(f)
		if err != nil || n < 0 || n > 127 {
			continue
		}
		pt := uint8(n)
		c, ok := maps[pt]
		if !ok {
			if c, ok = staticPT[pt]; !ok {
				continue
			}
		}
		c.PT = pt
		c.Fmtp = fmtps[pt]
		r.codecs = append(r.codecs, c)
	}
	return r, nil
}

// rtcpPortOf reads an a=rtcp value (RFC 3605 2.1: port [nettype addrtype
// connection-address]); 0 for one we do not take. A port with another
// address than the m= line's c= is not taken: that address would need the
// checks parseSDP's callers make of c= (no loopback, none of this
// machine's own), and RTCP then goes to RTP + 1 as before.
func rtcpPortOf(v string, rtp net.IP) int {
	f := strings.Fields(v)
	if len(f) != 1 && len(f) != 4 {
		return 0
	}
	port, err := strconv.Atoi(f[0])
	if err != nil || port <= 0 || port > 65535 {
		return 0
	}
	if len(f) == 4 {
		if ip := net.ParseIP(f[3]); ip == nil || !ip.Equal(rtp) {
			return 0
		}
	}
	return port
}

// sdpPart is the application/sdp part of a multipart body (RFC 5621: a
// carrier's INVITE with ISUP beside the SDP, SIP-T, RFC 3204; one with a
// location, RFC 6442), or body as it is. Such offers failed to parse: the
// call rang and got 488 when answered. A MIME body starts with its first
// boundary ("--" and the boundary); an SDP starts with "v=".
func sdpPart(body []byte) []byte {
	if !bytes.HasPrefix(body, []byte("--")) {
		return body
	}
	line, _, _ := bytes.Cut(body, []byte("\n"))
	boundary := strings.TrimSpace(string(line[2:]))
	if boundary == "" {
		return body
	}
	mr := multipart.NewReader(bytes.NewReader(body), boundary)
	for range 8 { // a few parts; a body is at most a SIP message
		part, err := mr.NextRawPart()
		if err != nil {
			return body
		}
		ct, _, _ := mime.ParseMediaType(part.Header.Get("Content-Type"))
		if strings.EqualFold(ct, "application/sdp") {
			if b, err := io.ReadAll(io.LimitReader(part, int64(len(body)))); err == nil {
				return b
			}
			return body
		}
	}
	return body
}

func parseRtpmap(v string) (uint8, audio.Codec, bool) {
	sp := strings.IndexByte(v, ' ')
	if sp < 0 {
		return 0, audio.Codec{}, false
	}
	pt, err := strconv.Atoi(v[:sp])
	if err != nil || pt < 0 || pt > 127 {
		return 0, audio.Codec{}, false
	}
	parts := strings.Split(v[sp+1:], "/")
	c := audio.Codec{Name: parts[0], PT: uint8(pt), Channels: 1}
	// <encoding name>/<clock rate>[/<channels>] (RFC 4566 6): a rate that
	// is missing, no number, 0 or over an RTP clock's 32 bits (RFC 3550
	// 5.1), and a channel count that is no number, 0 or over 16 bits,
	// make the rtpmap unusable (a static payload type keeps its RFC 3551
	// meaning). They wrapped (2^32+8000 read as 8000, 65538 channels as
	// 2) or read as 0 (a rate matching any), and our answer echoed them.
	if len(parts) < 2 {
		return 0, audio.Codec{}, false
	}
	r, err := strconv.ParseUint(parts[1], 10, 32)
	if err != nil || r == 0 {
		return 0, audio.Codec{}, false
	}
	c.ClockRate = uint32(r)
	if len(parts) > 2 {
		ch, err := strconv.ParseUint(parts[2], 10, 16)
		if err != nil || ch == 0 {
			return 0, audio.Codec{}, false
		}
		c.Channels = uint16(ch)
	}
	return uint8(pt), c, true
}

func directionOf(lists ...[]sdp.Attribute) audio.Direction {
	for _, l := range lists {
		for _, a := range l {
			switch a.Key {
			case "sendonly":
				return audio.SendOnly
			case "recvonly":
				return audio.RecvOnly
			case "inactive":
				return audio.Inactive
			case "sendrecv":
				return audio.SendRecv
			}
		}
	}
	return audio.SendRecv
}

// sameCodec says whether the far end's codec c is our o: the same name
// and clock rate, and no more channels than we decode (opus 2, RFC 7587
// 7; the others 1). A far end's opus/48000/7 or PCMU/8000/2 was taken, and
// the answer carried its channel count.
func sameCodec(o, c audio.Codec) bool {
	return strings.EqualFold(o.Name, c.Name) && (o.ClockRate == c.ClockRate || o.ClockRate == 0 || c.ClockRate == 0) &&
		(o.Channels == 0 || c.Channels <= o.Channels)
}

// choose picks the codec for the session: when we answer, the first of our
// priority list that the offer has (with the offer's payload types); when we
// read an answer, the first the answer lists.
func choose(r remoteSDP, ours []audio.Codec, weAnswer bool) (negotiated, error) {
	n := negotiated{remote: r.addr, dir: r.dir, rtcp: r.rtcpPort}
	found := false
	if weAnswer {
	outer:
		for _, o := range ours {
			if o.Name == audio.CodecTelephoneEvent.Name {
				continue
			}
			for _, c := range r.codecs {
				if sameCodec(o, c) {
					n.codec, found = c, true
					n.codec.Channels = max(o.Channels, c.Channels)
					break outer
				}
			}
		}
	} else {
	outer2:
		for _, c := range r.codecs {
			for _, o := range ours {
				if o.Name != audio.CodecTelephoneEvent.Name && sameCodec(o, c) {
					n.codec, found = c, true
					break outer2
				}
			}
		}
	}
	if !found {
		return n, errNoCodec
	}
	for _, c := range r.codecs {
		if strings.EqualFold(c.Name, audio.CodecTelephoneEvent.Name) && c.ClockRate == n.codec.ClockRate {
			n.dtmfPT = c.PT
		}
	}
	if n.dtmfPT == 0 {
		for _, c := range r.codecs {
			if strings.EqualFold(c.Name, audio.CodecTelephoneEvent.Name) {
				n.dtmfPT = c.PT
			}
		}
	}
	return n, nil
}

// answerDirection is our direction toward an offer's direction (RFC 3264
// 6.1), given whether we hold the call ourselves.
func answerDirection(offer audio.Direction, weHold bool) audio.Direction {
	switch offer {
	case audio.SendOnly:
		if weHold {
			return audio.Inactive
		}
		return audio.RecvOnly
	case audio.RecvOnly:
		return audio.SendOnly
	case audio.Inactive:
		return audio.Inactive
	}
	if weHold {
		return audio.SendOnly
	}
	return audio.SendRecv
}

// buildSDP writes our session description: one audio m= line with codecs.
func buildSDP(ip string, port int, codecs []audio.Codec, dir audio.Direction, sessID, version uint64) []byte {
	return buildSDPSec(ip, port, codecs, dir, sessID, version, localSec{})
}

// buildSDPSec is buildSDP with the m= proto and a=crypto lines of sec.
func buildSDPSec(ip string, port int, codecs []audio.Codec, dir audio.Direction, sessID, version uint64, sec localSec) []byte {
	sd := sdp.SessionDescription{
		Origin: sdp.Origin{Username: "-", SessionID: sessID, SessionVersion: version,
			NetworkType: "IN", AddressType: "IP4", UnicastAddress: ip},
		SessionName:           "softphone",
		ConnectionInformation: &sdp.ConnectionInformation{NetworkType: "IN", AddressType: "IP4", Address: &sdp.Address{Address: ip}},
		TimeDescriptions:      []sdp.TimeDescription{{Timing: sdp.Timing{}}},
	}
	md := &sdp.MediaDescription{MediaName: sdp.MediaName{Media: "audio", Port: sdp.RangedPort{Value: port}, Protos: []string{"RTP", "AVP"}}}
	for _, c := range codecs {
		md.MediaName.Formats = append(md.MediaName.Formats, strconv.Itoa(int(c.PT)))
		rm := fmt.Sprintf("%d %s/%d", c.PT, c.Name, c.ClockRate)
		if c.Channels > 1 {
			rm += "/" + strconv.Itoa(int(c.Channels))
		}
		md.Attributes = append(md.Attributes, sdp.NewAttribute("rtpmap", rm))
		if c.Fmtp != "" {
			md.Attributes = append(md.Attributes, sdp.NewAttribute("fmtp", fmt.Sprintf("%d %s", c.PT, c.Fmtp)))
		}
	}
	md.Attributes = append(md.Attributes, sdp.NewAttribute("ptime", "20"), sdp.NewPropertyAttribute(dir.String()))
	sec.apply(md)
	sd.MediaDescriptions = []*sdp.MediaDescription{md}
	if len(sec.others) > 0 {
		sd.MediaDescriptions = make([]*sdp.MediaDescription, 0, len(sec.others)+1)
		for i, o := range sec.others {
			if i == sec.audioAt {
				sd.MediaDescriptions = append(sd.MediaDescriptions, md)
			}
			sd.MediaDescriptions = append(sd.MediaDescriptions, &sdp.MediaDescription{MediaName: sdp.MediaName{
				Media: o.media, Port: sdp.RangedPort{Value: 0}, Protos: strings.Split(o.proto, "/"), Formats: []string{o.format}}})
		}
		if sec.audioAt >= len(sec.others) {
			sd.MediaDescriptions = append(sd.MediaDescriptions, md)
		}
	}
	b, err := sd.Marshal()
	if err != nil {
		// Marshal fails only on impossible values; an empty body makes the
		// peer answer 488 rather than us panic.
		return nil
	}
	return b
}
