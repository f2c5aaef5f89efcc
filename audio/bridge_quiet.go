package audio

import (
	"net/netip"
	"time"
)

// The tab's microphone without a wake-up of its own (issue 20).
//
// A bridged call's two streams come 50 packets a second each from clocks
// of their own, so each packet woke a thread of the phone: 100 wake-ups a
// second. On a virtual machine a wake-up costs more than all the phone
// does with the packet (perf over a call on the 2-core VM of the figures:
// the scheduler's sleep and wake about 35 % of the phone's CPU, sendto
// 26 %, SRTP and the rest of the phone's own code under 10 %).
//
// The tab's packets can wait for the PBX's. The call's reader is woken by
// each packet from the PBX, which goes on to the tab at once (so the pace
// toward the tab, issue 20's p99 gap, is unchanged), and in the same wake
// it reads what the tab sent meanwhile: the microphone reaches the PBX up
// to one packet time (20 ms) later, which its jitter buffer absorbs.
//
// For that the tab's packets must wake nothing: a socket known to the Go
// netpoller wakes the thread waiting there on every datagram, read or not.
// So a second socket, unknown to it, is bound to the address of the ICE
// socket the tab's pair uses and connected to the tab's address. The
// kernel gives a datagram to the connected socket of its source before an
// unconnected one (a better match in udp4_lib_lookup's score), so all the
// tab sends arrives there. RTP goes the fast path's way (receive); the
// rest (ICE consent checks, RFC 7675; RTCP; DTLS) is handed to pion's
// reader of the ICE socket (localOnly.inject), and what pion sends still
// leaves from the ICE socket, from the same address and port.
//
// When the PBX falls silent (hold, a far end that sends nothing) for
// quietIdle, the quiet socket is closed and the tab's packets go to the
// ICE socket again, each read as it comes; the next packet from the PBX
// opens it again. A timer of the kernel's (quietTimer: a timerfd in the
// netpoller) says when, moved on by each packet from the PBX, so while
// they come it never goes off. A runtime timer moved at every packet kept
// the runtime's monitor thread (sysmon) waking 80 times a second: it
// sleeps until the next timer as it was. On systems without the quiet
// socket (quietSock's other build) nothing changes.

const (
	// quietIdle is how long the PBX may be silent before the tab's packets
	// go back to waking the ICE socket's reader; meanwhile they wait (this
	// long, once, when the far end stops sending).
	quietIdle = 100 * time.Millisecond
	// quietBatch bounds what one pump reads (the tab sends one packet per
	// 20 ms; more is a flood, read at the next pump).
	quietBatch = 32
	// quietRetry is how long a quiet socket that could not be opened is
	// not tried again.
	quietRetry = 10 * time.Second
)

// quieting says whether the quiet socket of the tab holding the audio is
// open.
func (b *Bridge) quieting() bool {
	return b != nil && b.quietF.Load() != nil
}

// pump is called by a call's reader after each packet from its PBX
// (byPacket) and by the quiet timer once the PBX has been silent for
// quietIdle: it reads what the tab sent meanwhile, and then closes the
// socket.
func (b *Bridge) pump(byPacket bool, now time.Time) {
	if b == nil {
		return
	}
	var f *fastPath
	if t := b.holder(); t != nil {
		f = t.fast.Load()
	}
	if cur := b.quietF.Load(); cur != nil && cur != f {
		cur.closeQuiet() // the audio moved to another tab
	}
	if f != nil {
		f.pump(byPacket, now)
	}
}

// quietWatch is the bridge's timer for the quiet socket, made with the
// first socket (qmu held) and kept until the bridge closes.
func (b *Bridge) quietWatch() *quietTimer {
	if t := b.qtimer.Load(); t != nil {
		return t
	}
	t, err := newQuietTimer(func() { b.pump(false, time.Now()) })
	if err != nil {
		b.eng.log.Warn("no timer for the tab's quiet socket", "err", err)
		return nil
	}
	if !b.qtimer.CompareAndSwap(nil, t) {
		t.close()
	}
	return b.qtimer.Load()
}

// unquiet closes the quiet socket: the call whose reader pumped it ended.
// Another call's next packet opens it again.
func (b *Bridge) unquiet() {
	if b == nil {
		return
	}
	if cur := b.quietF.Load(); cur != nil {
		cur.closeQuiet()
	}
}

func (f *fastPath) pump(byPacket bool, now time.Time) {
	if byPacket {
		if !f.qmu.TryLock() {
			return // another call's reader is at it
		}
	} else {
		f.qmu.Lock()
	}
	defer f.qmu.Unlock()
	if f.stopped {
		return
	}
	if byPacket {
		f.quietAt = now
		r := f.remote.Load()
		if r == nil {
			return
		}
		if f.quiet.isOpen() && f.quiet.peer != *r {
			f.closeQuietLocked() // the tab's packets come from elsewhere now (read on the ICE socket)
		}
		if !f.quiet.isOpen() && now.After(f.quietNot) {
			q, err := openQuiet(f.sock, *r)
			if err != nil {
				f.quietNot = now.Add(quietRetry)
				f.t.b.eng.log.Debug("tab media stays on the ICE socket", "tab", f.t.id, "err", err)
				return
			}
			w := f.t.b.quietWatch()
			if w == nil {
				q.close()
				f.quietNot = now.Add(quietRetry)
				return
			}
			f.mu.Lock() // send reads the socket under mu
			f.quiet = q
			f.mu.Unlock()
			f.t.b.quietF.Store(f)
		}
	}
	if !f.quiet.isOpen() {
		return
	}
	f.drainQuietLocked()
	w := f.t.b.qtimer.Load()
	switch idle := now.Sub(f.quietAt); {
	case idle >= quietIdle:
		f.closeQuietLocked()
		return
	case w != nil:
		// The timer is moved on at each packet (a system call, no wake):
		// it goes off only when the PBX has been silent for quietIdle.
		w.arm(quietIdle - idle)
	}
}

// drainQuietLocked reads what the quiet socket holds (qmu held).
func (f *fastPath) drainQuietLocked() {
	from := f.quiet.peer
	for range quietBatch {
		n, ok := f.quiet.recv(f.qbuf)
		if !ok {
			return
		}
		p := f.qbuf[:n]
		f.t.b.quietIn.Add(1)
		if isRTP(p) && f.receive(p, from) {
			continue
		}
		f.t.b.quietPion.Add(1)
		f.sock.inject(p, from)
	}
}

func (f *fastPath) closeQuiet() {
	f.qmu.Lock()
	defer f.qmu.Unlock()
	if f.quiet.isOpen() {
		f.drainQuietLocked() // what waits there would be lost with it
	}
	f.closeQuietLocked()
}

// closeQuietLocked (qmu held): the tab's packets go to the ICE socket.
func (f *fastPath) closeQuietLocked() {
	if !f.quiet.isOpen() {
		return
	}
	f.mu.Lock()
	q := f.quiet
	f.quiet = quietSock{}
	f.mu.Unlock()
	q.close()
	f.t.b.quietF.CompareAndSwap(f, nil)
	// A passing call's silence filler slept on the PBX's packets (tick):
	// it looks again now.
	now := time.Now()
	for _, s := range f.t.b.eng.talking() {
		s.kickPassing(now)
	}
}

// quietTo sends toward the tab on the quiet socket when it is open and
// connected to to (mu held): a write on the ICE socket readies it for
// writing in the netpoller, one more event to collect.
func (f *fastPath) quietTo(b []byte, to netip.AddrPort) bool {
	return f.quiet.isOpen() && f.quiet.peer == to && f.quiet.send(b)
}
