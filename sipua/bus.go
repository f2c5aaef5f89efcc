package sipua

import (
	"context"
	"sync"
	"sync/atomic"
	"time"
)

// Bus carries Events from the phone to its subscribers. Publish never blocks:
// each subscriber has a queue of its own, so a slow one never delays a call
// (syncthing's event bus). A bounded subscriber loses what overflows its
// buffer (buf events) and counts it; a lossless one (history, counters) has an
// unbounded queue instead, so it never misses a call. The queue is a slice
// that grows only as far as events wait and is let go when they are taken: a
// channel of buf events (512 bytes each; the webhook sender's 4,096 alone
// were 2 MiB) was allocated whole at the start and held for the life of the
// phone (issue 20, idle memory).
type Bus struct {
	mu   sync.Mutex
	seq  uint64
	subs map[*Subscription]struct{}
	taps []*tap // in the order they were added (bus_tap.go)
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

	max int // bounded only: events held (queued or in hand) before new ones are dropped

	mu      sync.Mutex
	queue   []Event // what C has not taken yet
	inHand  int     // 1 while pump holds an event taken from queue and not yet received
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
	// A bounded subscriber's channel is unbuffered, so the events it holds
	// are exactly those counted (queue and hand); a lossless one's has a
	// few places, so a burst is handed over without a switch per event.
	c := make(chan Event)
	if lossless {
		c = make(chan Event, min(buf, losslessChan))
	}
	s := &Subscription{bus: b, c: c, lossless: lossless, max: buf,
		wake: make(chan struct{}, 1), done: make(chan struct{})}
	go s.pump()
	b.mu.Lock()
	b.subs[s] = struct{}{}
	b.mu.Unlock()
	return s
}

// losslessChan bounds the channel of a lossless subscriber (its queue holds
// the rest).
const losslessChan = 16

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
	for _, t := range b.taps {
		t.take(e)
	}
	return e
}

func (s *Subscription) offer(e Event) {
	if s.keep != nil && !s.keep(e) {
		return
	}
	s.mu.Lock()
	if len(s.queue) == 0 && s.inHand == 0 {
		// Nothing of this subscriber's waits outside its channel: the
		// event goes straight in when the channel has room (a bounded
		// one's: when its reader is waiting), without waking pump, a
		// switch between goroutines per event and subscriber (issue 20).
		// Publish holds the bus lock, so Close cannot close the channel
		// meanwhile.
		select {
		case s.c <- e:
			s.mu.Unlock()
			return
		default:
		}
	}
	if !s.lossless && len(s.queue)+s.inHand >= s.max {
		s.mu.Unlock()
		s.dropped.Add(1)
		return
	}
	s.queue = append(s.queue, e)
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// pump moves a subscriber's queue into its channel, in order, one event at
// a time, and closes the channel when the subscription is closed.
func (s *Subscription) pump() {
	defer close(s.c)
	for {
		s.mu.Lock()
		if len(s.queue) == 0 {
			s.queue = nil // let a burst's backing array go
			s.mu.Unlock()
			select {
			case <-s.wake:
				continue
			case <-s.done:
				return
			}
		}
		e := s.queue[0]
		s.queue[0] = Event{}
		s.queue = s.queue[1:]
		s.inHand = 1
		s.mu.Unlock()
		select {
		case s.c <- e:
		case <-s.done:
			return
		}
		s.mu.Lock()
		s.inHand = 0
		s.mu.Unlock()
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
		close(s.done) // pump closes the channel
	})
}
