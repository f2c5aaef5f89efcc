package sipua

import "time"

// NewBusAfterRuns is NewBus with sequence numbers that go on rising across
// runs of the phone: the first is the start's Unix milliseconds times 1000
// (below 2^53 until the year 2255, so exact in JavaScript too). An /events
// client that reconnects after a crash with the Last-Event-ID of the earlier
// run then holds an id older than every event of this run, and is sent the
// events kept since the start, among them the call-ended of the calls the
// crash cut off (issue 14), instead of only what happens next.
func NewBusAfterRuns() *Bus {
	b := NewBus()
	b.seq = uint64(time.Now().UnixMilli()) * 1000
	return b
}
