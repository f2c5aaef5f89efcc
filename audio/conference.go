package audio

import (
	"fmt"
	"sync"
	"time"
)

// conference mixes calls locally at 16 kHz linear: every party hears
// everyone but themselves. The tab hears all parties through the bridge's
// mix, and its microphone goes to all of them (each talking session gets it).
type conference struct {
	done chan struct{}
	wg   sync.WaitGroup

	mu      sync.Mutex
	members map[*Session]*fifo
	frames  map[*Session][]int16
	ended   bool
}

// Conference joins the sessions into one local conference. Sessions already
// in a conference bring it along (the conferences merge). It needs at least
// two open, started sessions.
func (e *Engine) Conference(sessions ...*Session) error {
	all := map[*Session]bool{}
	for _, s := range sessions {
		if s == nil {
			continue
		}
		s.mu.Lock()
		ok, old := s.started && !s.closed, s.inConf
		s.mu.Unlock()
		if !ok {
			return fmt.Errorf("conference: call %s: %w", s.cfg.CallID, ErrNotStarted)
		}
		all[s] = true
		if old != nil {
			for _, m := range old.list() {
				all[m] = true
			}
		}
	}
	if len(all) < 2 {
		return ErrNotConference
	}
	c := &conference{done: make(chan struct{}), members: map[*Session]*fifo{}, frames: map[*Session][]int16{}}
	for s := range all {
		c.members[s] = newFIFO(200)
		c.frames[s] = make([]int16, frameLen)
	}
	for s := range all {
		s.mu.Lock()
		old := s.inConf
		s.inConf = c
		s.kickLocked(time.Now())
		s.mu.Unlock()
		s.conf.reset()
		if old != nil {
			old.dissolve()
		}
	}
	c.wg.Add(1)
	go c.loop()
	return nil
}

// LeaveConference takes the session out of its conference (a conference of
// one ends).
func (s *Session) LeaveConference() {
	s.mu.Lock()
	c := s.inConf
	s.mu.Unlock()
	if c != nil {
		c.leave(s)
	}
}

// InConference reports whether the session is in a local conference.
func (s *Session) InConference() bool { return s.conferenced() }

func (c *conference) list() []*Session {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]*Session, 0, len(c.members))
	for s := range c.members {
		out = append(out, s)
	}
	return out
}

func (c *conference) push(s *Session, pcm []int16) {
	c.mu.Lock()
	f := c.members[s]
	c.mu.Unlock()
	if f != nil {
		f.push(pcm)
	}
}

func (c *conference) leave(s *Session) {
	c.mu.Lock()
	delete(c.members, s)
	delete(c.frames, s)
	last := len(c.members) < 2
	c.mu.Unlock()
	s.detach(c)
	if last {
		c.dissolve()
	}
}

// dissolve ends the conference; remaining members talk as before.
func (c *conference) dissolve() {
	c.mu.Lock()
	if c.ended {
		c.mu.Unlock()
		return
	}
	c.ended = true
	rest := make([]*Session, 0, len(c.members))
	for s := range c.members {
		rest = append(rest, s)
	}
	c.mu.Unlock()
	close(c.done)
	for _, s := range rest {
		s.detach(c)
	}
}

func (s *Session) detach(c *conference) {
	s.mu.Lock()
	if s.inConf == c {
		s.inConf = nil
		s.kickLocked(time.Now())
	}
	s.mu.Unlock()
	s.conf.reset()
}

func (c *conference) loop() {
	defer c.wg.Done()
	tk := time.NewTicker(frameMs * time.Millisecond)
	defer tk.Stop()
	for {
		select {
		case <-c.done:
			return
		case <-tk.C:
			c.tick()
		}
	}
}

// tick takes 20 ms from every party and gives each the sum of the others.
func (c *conference) tick() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for s, f := range c.members {
		fr := c.frames[s]
		clear(fr)
		f.popPrimed(fr)
	}
	mix := make([]int16, frameLen)
	for s := range c.members {
		clear(mix)
		for o, fr := range c.frames {
			if o == s {
				continue
			}
			for i, v := range fr {
				mix[i] = sat(int32(mix[i]) + int32(v))
			}
		}
		s.conf.push(mix)
	}
}
