// Command startup measures the phone as a user starts it: the time from exec
// to the phone page answering, the idle resident memory, and the binary size.
// Usage: go run ./bench/startup [-runs 10]
package main

import (
	"bufio"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

func main() {
	runs := flag.Int("runs", 10, "start-ups to measure")
	flag.Parse()
	dir, err := os.MkdirTemp("", "softphone-bench-")
	must(err)
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "softphone")
	build := exec.Command("go", "build", "-ldflags=-s -w", "-o", bin, "./cmd/softphone")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := build.CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "build: %v\n%s", err, out)
		os.Exit(1)
	}
	fi, err := os.Stat(bin)
	must(err)
	plain := filepath.Join(dir, "softphone-plain")
	build = exec.Command("go", "build", "-o", plain, "./cmd/softphone")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	must(build.Run())
	fp, err := os.Stat(plain)
	must(err)
	fmt.Printf("binary: %.1f MB (stripped), %.1f MB (plain)   target < 40 MB\n", mb(fi.Size()), mb(fp.Size()))

	var times []time.Duration
	var rss []int
	for i := 0; i < *runs; i++ {
		home := filepath.Join(dir, fmt.Sprintf("home%d", i%2)) // odd runs start on an existing home
		d, r := startOnce(bin, home)
		times = append(times, d)
		rss = append(rss, r)
	}
	sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
	sort.Ints(rss)
	fmt.Printf("start to page answering: median %v, max %v over %d runs   target < 300 ms\n",
		times[len(times)/2].Round(time.Millisecond), times[len(times)-1].Round(time.Millisecond), len(times))
	fmt.Printf("idle RSS after 2 s: median %.1f MB, max %.1f MB   target < 40 MB\n", float64(rss[len(rss)/2])/1024, float64(rss[len(rss)-1])/1024)
}

var pageLine = regexp.MustCompile(`Phone page: (\S+)`)

func startOnce(bin, home string) (time.Duration, int) {
	t0 := time.Now()
	cmd := exec.Command(bin, "--home", home, "--no-browser")
	cmd.Env = append(os.Environ(), "DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent")
	stdout, err := cmd.StdoutPipe()
	must(err)
	must(cmd.Start())
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	sc := bufio.NewScanner(stdout)
	var url string
	for sc.Scan() {
		if m := pageLine.FindStringSubmatch(sc.Text()); m != nil {
			url = m[1]
			break
		}
	}
	if url == "" {
		fmt.Fprintln(os.Stderr, "no page line")
		os.Exit(1)
	}
	go func() {
		for sc.Scan() {
		}
	}()
	resp, err := http.Get(url)
	must(err)
	resp.Body.Close()
	d := time.Since(t0)
	time.Sleep(2 * time.Second) // idle: what the phone holds when nothing happens
	return d, rssKB(cmd.Process.Pid)
}

func rssKB(pid int) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	must(err)
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "VmRSS:") {
			n, _ := strconv.Atoi(strings.Fields(l)[1])
			return n
		}
	}
	return 0
}

func mb(n int64) float64 { return float64(n) / (1 << 20) }

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
