package sipua

import (
	"os"
	"runtime"
)

// fdsAndHeap gives the test process's open file descriptors and heap in use:
// the figures the hostile-peer tests log under each attack.
func fdsAndHeap() (fds int, heap uint64) {
	ents, _ := os.ReadDir("/proc/self/fd")
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return len(ents), m.HeapInuse
}
