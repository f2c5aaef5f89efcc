package testpeer

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"fmt"
	"math"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Capture is a running tshark writing what crosses an interface to a file.
type Capture struct {
	Path string
	cmd  *exec.Cmd
	done chan struct{}
}

// StartCapture runs tshark on iface (e.g. "lo") with a capture filter
// (e.g. "udp") until Stop; it returns once tshark says it captures.
func StartCapture(t testing.TB, iface, filter string) *Capture {
	t.Helper()
	Require(t, "tshark")
	c := &Capture{Path: filepath.Join(t.TempDir(), "cap.pcap"), done: make(chan struct{})}
	c.cmd = exec.Command("tshark", "-i", iface, "-n", "-q", "-f", filter, "-w", c.Path)
	c.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	stderr, err := c.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.cmd.Start(); err != nil {
		t.Fatalf("tshark: %v", err)
	}
	ready := make(chan struct{})
	var log bytes.Buffer
	go func() {
		sc := bufio.NewScanner(stderr)
		once := false
		for sc.Scan() {
			log.WriteString(sc.Text() + "\n")
			if !once && strings.Contains(sc.Text(), "Capturing on") {
				once = true
				close(ready)
			}
		}
	}()
	go func() { _ = c.cmd.Wait(); close(c.done) }()
	t.Cleanup(c.Stop)
	select {
	case <-ready:
	case <-c.done:
		t.Fatalf("tshark ended before capturing: %s", log.String())
	case <-time.After(15 * time.Second):
		t.Fatalf("tshark did not start capturing: %s", log.String())
	}
	return c
}

// Stop ends the capture (SIGINT lets tshark finish the file) and waits.
func (c *Capture) Stop() {
	select {
	case <-c.done:
		return
	default:
	}
	_ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGINT)
	select {
	case <-c.done:
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
		<-c.done
	}
}

// RTPStream is what JudgeRTP found of one RTP stream of a capture.
type RTPStream struct {
	Key       string  // "src:port -> dst:port pt N"
	Packets   int     // audio-sized packets (payload of 100 bytes or more)
	Entropy   float64 // mean bits per byte of the payloads
	Pieces    int     // payloads that are a piece of a known clear PCMU file
	Constant  int     // payloads of at most two byte values (PCMU silence)
	Untagged  int     // G.711/G.722 payloads of whole 10 ms: no room for an SRTP tag
	Clear     bool
	PayloadSz map[int]int
}

func (s RTPStream) String() string {
	verdict := "encrypted"
	if s.Clear {
		verdict = "CLEAR"
	}
	return fmt.Sprintf("%s: %d packets, sizes %v, entropy %.2f, known pieces %d, constant %d, untagged %d: %s",
		s.Key, s.Packets, s.PayloadSz, s.Entropy, s.Pieces, s.Constant, s.Untagged, verdict)
}

// JudgeRTP reads every packet tshark takes for RTP in pcap (with its RTP
// heuristic: SRTP looks like RTP) and decides per stream whether its
// payload is clear, as the harness's srtp/rtpcheck.py: clear G.711 of a
// tone has 2-6 bits of entropy per byte and matches the known file, PCMU
// silence is constant, SRTP has about 6.8 bits and an auth tag.
func JudgeRTP(pcap string, known ...[]byte) ([]RTPStream, error) {
	out, err := rtpLinesOf(pcap)
	if err != nil {
		return nil, err
	}
	return judgeLines(out, known), nil
}

// rtpLinesOf is what tshark finds for RTP in pcap: per packet a line of
// ip.src, udp.srcport, ip.dst, udp.dstport, rtp.p_type, udp.payload (hex).
func rtpLinesOf(pcap string) (string, error) {
	out, err := exec.Command("tshark", "-r", pcap, "-o", "rtp.heuristic_rtp:TRUE", "-Y", "rtp and rtp.version==2",
		"-T", "fields", "-e", "ip.src", "-e", "udp.srcport", "-e", "ip.dst", "-e", "udp.dstport",
		"-e", "rtp.p_type", "-e", "udp.payload").Output()
	if err != nil {
		return "", fmt.Errorf("tshark -r %s: %w", pcap, err)
	}
	return string(out), nil
}

// JudgePackets is JudgeRTP for what a PacketCapture saw.
func JudgePackets(pkts []Packet, known ...[]byte) []RTPStream {
	return judgeLines(rtpLines(pkts), known)
}

// rtpLines gives the UDP packets that look like RTP (version 2, not an
// RTCP packet type, RFC 5761 4) in rtpLinesOf's form. STUN, DTLS and SIP
// never start with version 2 (RFC 7983 7).
func rtpLines(pkts []Packet) string {
	var b strings.Builder
	for _, p := range pkts {
		d := p.Payload
		if p.Proto != "udp" || len(d) < 12 || d[0]>>6 != 2 || (d[1] >= 192 && d[1] <= 223) {
			continue
		}
		fmt.Fprintf(&b, "%s\t%d\t%s\t%d\t%d\t%s\n", p.Src.Addr(), p.Src.Port(), p.Dst.Addr(), p.Dst.Port(), d[1]&0x7f, hex.EncodeToString(d))
	}
	return b.String()
}

func judgeLines(out string, known [][]byte) []RTPStream {
	type acc struct {
		s   RTPStream
		ent float64
	}
	streams := map[string]*acc{}
	var order []string
	for _, line := range strings.Split(out, "\n") {
		f := strings.Split(line, "\t")
		if len(f) < 6 || f[5] == "" {
			continue
		}
		raw, err := hex.DecodeString(strings.ReplaceAll(f[5], ":", ""))
		if err != nil || len(raw) < 12 {
			continue
		}
		off := 12 + 4*int(raw[0]&0x0f)
		if raw[0]&0x10 != 0 && len(raw) >= off+4 {
			off += 4 + 4*(int(raw[off+2])<<8|int(raw[off+3]))
		}
		if off > len(raw) || len(raw)-off < 100 {
			continue
		}
		p := raw[off:]
		key := fmt.Sprintf("%s:%s -> %s:%s pt %s", f[0], f[1], f[2], f[3], f[4])
		a, ok := streams[key]
		if !ok {
			a = &acc{s: RTPStream{Key: key, PayloadSz: map[int]int{}}}
			streams[key] = a
			order = append(order, key)
		}
		a.s.Packets++
		a.s.PayloadSz[len(raw)]++
		a.ent += entropy(p)
		for _, k := range known {
			if bytes.Contains(k, p[:40]) {
				a.s.Pieces++
				break
			}
		}
		if distinct(p) <= 2 {
			a.s.Constant++
		}
		if (f[4] == "0" || f[4] == "8" || f[4] == "9") && len(p)%80 == 0 {
			a.s.Untagged++
		}
	}
	var res []RTPStream
	for _, k := range order {
		s := streams[k].s
		s.Entropy = streams[k].ent / float64(s.Packets)
		s.Clear = s.Entropy < 6.0 || s.Pieces > 0 || s.Constant > 0 || s.Untagged > s.Packets/2
		res = append(res, s)
	}
	return res
}

func entropy(b []byte) float64 {
	var n [256]int
	for _, c := range b {
		n[c]++
	}
	e := 0.0
	for _, v := range n {
		if v > 0 {
			p := float64(v) / float64(len(b))
			e -= p * math.Log2(p)
		}
	}
	return e
}

func distinct(b []byte) int {
	var seen [256]bool
	d := 0
	for _, c := range b {
		if !seen[c] {
			seen[c] = true
			d++
		}
	}
	return d
}

// UlawOfTone is the clear PCMU a baresip of BaresipOpts.Tone hz sends (its
// source file as G.711 u-law), for JudgeRTP's known pieces.
func UlawOfTone(hz float64) []byte { return ulawTone(hz, 60) }

// RTPPayloads gives the payloads (RTP header and extension cut off) of the
// RTP packets of pcap whose stream key ("src:port -> dst:port pt N", as
// JudgeRTP's) keep accepts, per key in capture order. With decrypt the raw
// UDP payload goes through it first (SRTP, e.g. pion/srtp with keys the
// test took from the SDP); packets it refuses are left out.
func RTPPayloads(pcap string, keep func(key string) bool, decrypt func(key string, pkt []byte) ([]byte, error)) (map[string][][]byte, error) {
	out, err := rtpLinesOf(pcap)
	if err != nil {
		return nil, err
	}
	return payloadsOfLines(out, keep, decrypt), nil
}

// PacketPayloads is RTPPayloads for what a PacketCapture saw.
func PacketPayloads(pkts []Packet, keep func(key string) bool, decrypt func(key string, pkt []byte) ([]byte, error)) map[string][][]byte {
	return payloadsOfLines(rtpLines(pkts), keep, decrypt)
}

func payloadsOfLines(out string, keep func(key string) bool, decrypt func(key string, pkt []byte) ([]byte, error)) map[string][][]byte {
	res := map[string][][]byte{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Split(line, "\t")
		if len(f) < 6 || f[5] == "" {
			continue
		}
		key := fmt.Sprintf("%s:%s -> %s:%s pt %s", f[0], f[1], f[2], f[3], f[4])
		if !keep(key) {
			continue
		}
		raw, err := hex.DecodeString(strings.ReplaceAll(f[5], ":", ""))
		if err != nil || len(raw) < 12 {
			continue
		}
		if decrypt != nil {
			if raw, err = decrypt(key, raw); err != nil {
				continue
			}
		}
		off := 12 + 4*int(raw[0]&0x0f)
		if raw[0]&0x10 != 0 && len(raw) >= off+4 {
			off += 4 + 4*(int(raw[off+2])<<8|int(raw[off+3]))
		}
		if off >= len(raw) {
			continue
		}
		res[key] = append(res[key], raw[off:])
	}
	return res
}

// G711Tone decodes G.711 payloads (alaw: PCMA, else PCMU) at 8 kHz and
// says which tone they hold.
func G711Tone(payloads [][]byte, alaw bool) Tone {
	var x []float64
	for _, p := range payloads {
		for _, b := range p {
			if alaw {
				x = append(x, float64(alawToLinear(b))/32768)
			} else {
				x = append(x, float64(ulawToLinear(b))/32768)
			}
		}
	}
	return AnalyseTone(x, 8000)
}

// SDPCrypto is an a=crypto line (RFC 4568) of an SDP in a capture, with the
// m= port of its media: what the sender of that port encrypts with.
type SDPCrypto struct {
	MediaPort string
	Suite     string // e.g. AES_CM_128_HMAC_SHA1_80
	Inline    string // base64 of key and salt
}

// SDPCryptos lists the a=crypto lines of every SDP tshark finds in pcap
// (SIP over UDP: the test's own clear signalling to kamailio).
func SDPCryptos(pcap string) ([]SDPCrypto, error) {
	out, err := exec.Command("tshark", "-r", pcap, "-Y", "sdp", "-T", "fields",
		"-e", "sdp.media.port", "-e", "sdp.media_attr").Output()
	if err != nil {
		return nil, fmt.Errorf("tshark -r %s: %w", pcap, err)
	}
	var res []SDPCrypto
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Split(line, "\t")
		if len(f) < 2 {
			continue
		}
		port := strings.Split(f[0], ",")[0]
		for _, a := range strings.Split(f[1], ",") {
			w := strings.Fields(a)
			if len(w) < 3 || !strings.HasPrefix(w[0], "crypto:") || !strings.HasPrefix(w[2], "inline:") {
				continue
			}
			inline, _, _ := strings.Cut(strings.TrimPrefix(w[2], "inline:"), "|")
			res = append(res, SDPCrypto{MediaPort: port, Suite: w[1], Inline: inline})
		}
	}
	return res, nil
}

// PacketCryptos is SDPCryptos for what a PacketCapture saw: the a=crypto
// lines of the SDPs in clear SIP over UDP, with their m=audio port.
func PacketCryptos(pkts []Packet) []SDPCrypto {
	var res []SDPCrypto
	for _, p := range pkts {
		if p.Proto != "udp" || !strings.Contains(string(p.Payload), "m=audio ") {
			continue
		}
		port := ""
		for _, l := range strings.Split(string(p.Payload), "\n") {
			l = strings.TrimSpace(l)
			if f := strings.Fields(l); len(f) > 1 && f[0] == "m=audio" {
				port = f[1]
			}
			w := strings.Fields(strings.TrimPrefix(l, "a="))
			if port == "" || len(w) < 3 || !strings.HasPrefix(w[0], "crypto:") || !strings.HasPrefix(w[2], "inline:") {
				continue
			}
			inline, _, _ := strings.Cut(strings.TrimPrefix(w[2], "inline:"), "|")
			res = append(res, SDPCrypto{MediaPort: port, Suite: w[1], Inline: inline})
		}
	}
	return res
}
