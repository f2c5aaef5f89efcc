package sipua

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Bus carries Events from the phone to its subscribers. Publish never blocks:
// each subscriber has a buffer of its own, so a slow one never delays a call
// (syncthing's event bus). A bounded subscriber loses what overflows its buffer
// and counts it; a lossless one (history, counters) has an unbounded queue
// instead, so it never misses a call.
type Bus struct {
	mu   sync.Mutex
	seq  uint64
	subs map[*Subscription]struct{}
}

// NewBus returns an empty bus.
func NewBus() *Bus {
	return &Bus{subs: make(map[*Subscription]struct{})}
}

// Subscription is one subscriber's view of the bus.
type Subscription struct {
	bus      *Bus
	c        chan Event
	lossless bool
	keep     func(Event) bool // nil: every event
	dropped  atomic.Uint64

	mu      sync.Mutex
	queue   []Event // lossless only: what C has not taken yet
	wake    chan struct{}
	done    chan struct{}
	closeMu sync.Once
}

// Subscribe adds a subscriber with a buffer of buf events. A lossless
// subscriber never loses an event; a bounded one drops (and counts) events
// when its buffer is full.
func (b *Bus) Subscribe(buf int, lossless bool) *Subscription {
	if buf < 1 {
		buf = 1
	}
	s := &Subscription{bus: b, c: make(chan Event, buf), lossless: lossless,
		wake: make(chan struct{}, 1), done: make(chan struct{})}
	if lossless {
		go s.pump()
	}
	b.mu.Lock()
	b.subs[s] = struct{}{}
	b.mu.Unlock()
	return s
}

// SubscribeOnly is Subscribe for the events keep says yes to: the others
// never reach the subscriber, so they can neither fill its buffer nor count
// as dropped. keep runs inside Publish, under the bus lock: it must be quick
// and must not publish.
func (b *Bus) SubscribeOnly(buf int, lossless bool, keep func(Event) bool) *Subscription {
	s := b.Subscribe(buf, lossless)
	b.mu.Lock()
	s.keep = keep
	b.mu.Unlock()
	return s
}

// Publish stamps e with the next sequence number (and the time, when unset)
// and hands it to every subscriber without blocking.
func (b *Bus) Publish(e Event) Event {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.seq++
	e.Seq = b.seq
	if e.At.IsZero() {
		e.At = time.Now()
	}
	for s := range b.subs {
		s.offer(e)
	}
	return e
}

func (s *Subscription) offer(e Event) {
	if s.keep != nil && !s.keep(e) {
		return
	}
	if s.lossless {
		s.mu.Lock()
		s.queue = append(s.queue, e)
		s.mu.Unlock()
		select {
		case s.wake <- struct{}{}:
		default:
		}
		return
	}
	select {
	case s.c <- e:
	default:
		s.dropped.Add(1)
	}
}

// pump moves a lossless subscriber's queue into its channel, in order.
func (s *Subscription) pump() {
	defer close(s.c)
	for {
		s.mu.Lock()
		q := s.queue
		s.queue = nil
		s.mu.Unlock()
		for _, e := range q {
			select {
			case s.c <- e:
			case <-s.done:
				return
			}
		}
		if len(q) > 0 {
			continue
		}
		select {
		case <-s.wake:
		case <-s.done:
			return
		}
	}
}

// Each calls fn with every event, in order, until ctx ends or the
// subscription is closed: the reading loop most subscribers need.
func (s *Subscription) Each(ctx context.Context, fn func(Event)) {
	for {
		select {
		case <-ctx.Done():
			return
		case e, ok := <-s.c:
			if !ok {
				return
			}
			fn(e)
		}
	}
}

// C is the channel the subscriber reads. It is closed after Close.
func (s *Subscription) C() <-chan Event { return s.c }

// Dropped counts the events this subscriber lost to a full buffer.
func (s *Subscription) Dropped() uint64 { return s.dropped.Load() }

// Close removes the subscriber from the bus and closes its channel.
func (s *Subscription) Close() {
	s.closeMu.Do(func() {
		s.bus.mu.Lock()
		delete(s.bus.subs, s)
		s.bus.mu.Unlock()
		close(s.done)
		if !s.lossless {
			close(s.c)
		}
	})
}
