package main

import (
	"fmt"
	"os"
	"time"

	"github.com/softphone/softphone/bench/internal/rig"
	"github.com/softphone/softphone/internal/testpeer"
)

// mediaGap places one more call and records, with the kernel's time stamps
// on loopback, when the phone's packets reach the tab: first with nothing
// else to do, then while wrk loads GET /calls with conns connections (issue
// 20: the packets to the tab keep a p99 gap under 30 ms under that load).
// The packets of a 20 ms codec are 20 ms apart when nothing delays them.
func mediaGap(tb *rig.TB, ph *phone, bobPID int, d time.Duration, conns int) {
	// baresip's microphone is a 60 s tone file and it hangs up when the
	// file ends (testpeer): both stretches fit in one call.
	d = min(d, 25*time.Second)
	sn, err := rig.Sniff()
	if err != nil {
		fmt.Fprintf(os.Stderr, "media gap not measured: %v\n", err)
		return
	}
	defer sn.Close()
	res, err := post(ph.api+"/calls", map[string]any{"number": "bob"})
	if err != nil {
		tb.Fatal(err)
	}
	id, _ := res["id"].(string)
	if !testpeer.WaitFor(15*time.Second, func() bool {
		var c map[string]any
		return testpeer.GetJSON(ph.api+"/calls/"+id, &c) == nil && c["state"] == "active"
	}) {
		tb.Fatalf("call %s did not become active", id)
	}
	time.Sleep(3 * time.Second)
	// The phone's flows toward the tab: from one of its sockets to a port
	// that is neither its own nor baresip's.
	mine, bobs := rig.UDPPorts(ph.pid), rig.UDPPorts(bobPID)
	// The anchor: baresip's packets to the phone in the same stretch (what
	// the phone forwards cannot be steadier than what it gets).
	flow := func(seen map[rig.Flow][]int64, toTab bool) []int64 {
		var best []int64
		for f, at := range seen {
			ok := mine[f.Src] && !mine[f.Dst] && !bobs[f.Dst]
			if !toTab {
				ok = bobs[f.Src] && mine[f.Dst]
			}
			if ok && len(at) > len(best) {
				best = at
			}
		}
		return best
	}
	sn.Start()
	time.Sleep(d)
	seen := sn.Stop()
	quiet, quietIn := flow(seen, true), flow(seen, false)
	sn.Start()
	rps, p99, err := rig.Wrk(ph.api+"/calls", "", conns, int(d.Seconds()))
	seen = sn.Stop()
	loaded, loadedIn := flow(seen, true), flow(seen, false)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := post(ph.api+"/calls/"+id+"/hangup", map[string]any{}); err != nil {
		tb.Fatal(err)
	}
	testpeer.WaitFor(10*time.Second, func() bool {
		var calls []map[string]any
		return testpeer.GetJSON(ph.api+"/calls", &calls) == nil && len(calls) == 0
	})
	show := func(what string, at []int64, tail string) {
		p50, p99, max := rig.Gaps(at)
		fmt.Printf("%-46s %4d packets, gap median %5.1f ms, p99 %6.1f ms, max %6.1f ms%s\n", what, len(at), p50, p99, max, tail)
	}
	// The phone's own part: how long it held each packet of baresip's
	// before its packet to the tab left (pass-through: one out per one in),
	// whatever baresip's own gaps were.
	held := func(in, out []int64) string {
		p50, p99, max := rig.Delays(in, out)
		return fmt.Sprintf("; held in the phone: median %.2f ms, p99 %.2f ms, max %.1f ms", p50, p99, max)
	}
	show("baresip to the phone, no load:", quietIn, "")
	show("the phone to the tab, no load:", quiet, held(quietIn, quiet))
	show(fmt.Sprintf("baresip to the phone, wrk -c%d GET /calls:", conns), loadedIn, "")
	show(fmt.Sprintf("the phone to the tab, wrk -c%d GET /calls:", conns), loaded,
		fmt.Sprintf(" (API %.0f req/s, p99 %.1f ms)   target: p99 < 30 ms", rps, p99)+held(loadedIn, loaded))
}
