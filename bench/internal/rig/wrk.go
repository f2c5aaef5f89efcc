package rig

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
)

// Wrk runs wrk -t2 against url and returns requests per second and the
// 99th percentile in ms.
func Wrk(url, script string, conns, secs int) (float64, float64, error) {
	args := []string{"-t2", fmt.Sprintf("-c%d", conns), fmt.Sprintf("-d%ds", secs), "--latency"}
	if script != "" {
		args = append(args, "-s", script)
	}
	out, err := exec.Command("wrk", append(args, url)...).CombinedOutput()
	if err != nil {
		return 0, 0, fmt.Errorf("wrk: %v\n%s", err, out)
	}
	var rps, p99 float64
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) == 2 && f[0] == "Requests/sec:":
			_, _ = fmt.Sscan(f[1], &rps)
		case len(f) == 2 && f[0] == "99%":
			p99 = durMS(f[1])
		case len(f) > 0 && (f[0] == "Non-2xx" || f[0] == "Socket"):
			fmt.Fprintf(os.Stderr, "wrk %s: %s\n", url, sc.Text())
		}
	}
	return rps, p99, nil
}

func durMS(s string) float64 {
	for _, u := range []struct {
		suf string
		k   float64
	}{{"us", 0.001}, {"ms", 1}, {"s", 1000}} {
		if strings.HasSuffix(s, u.suf) {
			var v float64
			_, _ = fmt.Sscan(strings.TrimSuffix(s, u.suf), &v)
			return v * u.k
		}
	}
	return 0
}

// Machine names the machine for the figures: cores and processor model.
func Machine() string {
	model := "unknown cpu"
	b, _ := os.ReadFile("/proc/cpuinfo")
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "model name") {
			model = strings.TrimSpace(strings.SplitN(l, ":", 2)[1])
			break
		}
	}
	return fmt.Sprintf("%d cores (%s)", runtime.NumCPU(), model)
}
