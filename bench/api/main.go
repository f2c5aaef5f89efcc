// Command api measures the local control API as an integration sees it
// (issue 20): the real phone binary with the API on, against a bare fiber v3
// server answering the very same bytes, both loaded by wrk with the same
// connections in the same run. It prints req/s, p99 and the server's CPU
// per request side by side for
//
//   - GET /calls (the anchor: bare fiber serving the phone's own answer);
//   - GET /history with a limit drawn per request from 1..100 over 100,000
//     finished calls (the anchor: bare fiber serving the limit=100 answer).
//
// With -also DIR the phone built from another source tree (main's, say)
// runs too, on a copy of the same database, so a branch is measured beside
// the code it changes in the same stretch. The servers take turns within
// each round and the order rotates between rounds: load from elsewhere on a
// shared machine falls on all of them alike. CPU per request (utime+stime
// of the server process over the requests wrk counted) moves less with that
// load than req/s does.
//
// Run it inside `unshare -n` (it only uses 127.0.0.1):
//
//	go run ./bench/api [-conns 64 -secs 5 -rounds 2 -also /work/main]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	_ "net/http/pprof" // the bare server's profile, with -bare-pprof
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gofiber/fiber/v3"
	"github.com/softphone/softphone/bench/internal/rig"
)

func main() {
	conns := flag.Int("conns", 64, "wrk connections")
	secs := flag.Int("secs", 5, "seconds per wrk run")
	rows := flag.Int("rows", 100_000, "history rows")
	rounds := flag.Int("rounds", 2, "rounds per path; each runs every server once")
	also := flag.String("also", "", "a second source tree (e.g. /work/main) whose phone runs beside this one")
	bare := flag.String("bare", "", "internal: serve the body in this file as a bare fiber server")
	barePprof := flag.String("bare-pprof", "", "internal: the bare server's pprof address")
	prof := flag.String("pprof", "", "save CPU profiles under the first run of each path here: PATH.calls, PATH.history of the phone (its binary at PATH.bin), PATH.bare.calls, PATH.bare.history of the bare server (the bench binary itself)")
	only := flag.String("only", "", "run only the paths whose name holds this (calls, history)")
	flag.Parse()
	if *bare != "" {
		if *barePprof != "" {
			go func() { _ = http.ListenAndServe(*barePprof, nil) }()
		}
		serveBare(*bare)
		return
	}
	dir, err := os.MkdirTemp("", "softphone-api-bench-")
	must(err)
	defer os.RemoveAll(dir)
	tb := &rig.TB{}
	defer tb.Close()
	bin := rig.BuildPhone(tb, dir, *prof != "")
	db := filepath.Join(dir, "softphone.db")
	must(fillHistory(db, *rows))

	phones := []*server{startPhone("softphone", bin, filepath.Join(dir, "home"), db, *prof != "")}
	if *also != "" {
		abin := filepath.Join(dir, "softphone-also")
		cmd := exec.Command("go", "build", "-o", abin, "./cmd/softphone")
		cmd.Dir = *also
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			must(fmt.Errorf("build %s: %v\n%s", *also, err, out))
		}
		phones = append(phones, startPhone(filepath.Base(filepath.Clean(*also)), abin, filepath.Join(dir, "home-also"), db, false))
	}
	for _, p := range phones {
		defer stop(p.cmd)
	}

	self, err := os.Executable()
	must(err)
	fmt.Printf("machine: %s, wrk -t2 -c%d -d%ds, %d rounds; CPU is the server's utime+stime per request\n", rig.Machine(), *conns, *secs, *rounds)
	for _, m := range []struct{ name, path, lua, body, prof string }{
		{"GET /calls", "/calls", "", "/calls", ".calls"},
		{"GET /history limit 1..100", "/history", historyLua, "/history?limit=100", ".history"},
	} {
		if *only != "" && !strings.Contains(m.name, *only) {
			continue
		}
		body := get(phones[0].base + m.body)
		f := filepath.Join(dir, "body")
		must(os.WriteFile(f, body, 0o600))
		bport := freeTCP()
		bpprof := fmt.Sprintf("127.0.0.1:%d", freeTCP())
		b := &server{name: "bare fiber", base: fmt.Sprintf("http://127.0.0.1:%d", bport), pprof: bpprof,
			cmd: run(self, "-bare", f+"@"+fmt.Sprint(bport), "-bare-pprof", bpprof)}
		waitOK(b.base + "/")
		script := ""
		if m.lua != "" {
			script = filepath.Join(dir, "req.lua")
			must(os.WriteFile(script, []byte(m.lua), 0o600))
		}
		all := append([]*server{b}, phones...)
		res := map[*server][]result{}
		for i := range *rounds {
			// The order rotates, so no server always runs right after
			// another one's load.
			order := append(slices.Clone(all[i%len(all):]), all[:i%len(all)]...)
			for _, s := range order {
				profile := ""
				if *prof != "" && i == 0 && s.pprof != "" {
					profile = *prof + m.prof
					if s == b {
						profile = *prof + ".bare" + m.prof
					}
				}
				r := s.load(m.path, script, *conns, *secs, profile)
				res[s] = append(res[s], r)
			}
			fmt.Printf("%-26s round %d:", m.name, i+1)
			for _, s := range all {
				r := res[s][i]
				fmt.Printf(" | %s %6.0f req/s p99 %6.2f ms %5.1f cpu-µs/req", s.name, r.rps, r.p99, r.cpuPerReq)
			}
			fmt.Println()
		}
		fmt.Printf("%-26s median:", m.name)
		for _, s := range all {
			r := median(res[s])
			fmt.Printf(" | %s %6.0f req/s p99 %6.2f ms %5.1f cpu-µs/req", s.name, r.rps, r.p99, r.cpuPerReq)
		}
		fmt.Println()
		for _, s := range phones {
			var ratios, p99s, cpus []float64
			for i := range res[s] {
				ratios = append(ratios, res[s][i].rps/res[b][i].rps)
				p99s = append(p99s, res[s][i].p99/res[b][i].p99)
				cpus = append(cpus, res[s][i].cpuPerReq/res[b][i].cpuPerReq)
			}
			fmt.Printf("%-26s %s to bare, per round: req/s ratio %s; p99 x%s; cpu per request x%s\n",
				m.name, s.name, list(ratios), list(p99s), list(cpus))
		}
		stop(b.cmd)
	}
	if *prof != "" {
		b, err := os.ReadFile(bin)
		must(err)
		must(os.WriteFile(*prof+".bin", b, 0o755))
		b, err = os.ReadFile(self)
		must(err)
		must(os.WriteFile(*prof+".bare.bin", b, 0o755))
	}
}

// server is one process under load.
type server struct {
	name  string
	base  string
	pprof string // "": no profiles
	cmd   *exec.Cmd
}

type result struct{ rps, p99, cpuPerReq float64 }

// load runs wrk against the server's path; with profile, a CPU profile of
// the server under it is saved there.
func (s *server) load(path, script string, conns, secs int, profile string) result {
	done := make(chan error, 1)
	if profile != "" {
		go func() {
			done <- rig.FetchProfile(s.pprof, fmt.Sprintf("profile?seconds=%d", max(1, secs-1)), profile)
		}()
	} else {
		done <- nil
	}
	c0, err := rig.CPUOf(s.cmd.Process.Pid)
	must(err)
	rps, p99, err := rig.Wrk(s.base+path, script, conns, secs)
	must(err)
	c1, err := rig.CPUOf(s.cmd.Process.Pid)
	must(err)
	must(<-done)
	return result{rps: rps, p99: p99, cpuPerReq: float64((c1 - c0).Microseconds()) / (rps * float64(secs))}
}

// startPhone runs bin with the API on over a copy of the database db.
func startPhone(name, bin, home, db string, pprof bool) *server {
	must(os.MkdirAll(home, 0o700))
	b, err := os.ReadFile(db)
	must(err)
	must(os.WriteFile(filepath.Join(home, "softphone.db"), b, 0o600))
	port := freeTCP()
	st := map[string]any{"api": map[string]any{"enabled": true, "port": port}, "integration": map[string]any{"enabled": true}}
	b, _ = json.Marshal(st)
	must(os.WriteFile(filepath.Join(home, "settings.json"), b, 0o600))
	s := &server{name: name, base: fmt.Sprintf("http://127.0.0.1:%d", port)}
	var env []string
	if pprof {
		s.pprof = fmt.Sprintf("127.0.0.1:%d", freeTCP())
		env = []string{"SOFTPHONE_PPROF=" + s.pprof}
	}
	s.cmd = runEnv(bin, env, "--home", home, "--no-browser", "--log-level", "error")
	waitOK(s.base + "/calls")
	return s
}

func median(rs []result) result {
	pick := func(f func(result) float64) float64 {
		v := make([]float64, len(rs))
		for i, r := range rs {
			v[i] = f(r)
		}
		slices.Sort(v)
		if len(v)%2 == 1 {
			return v[len(v)/2]
		}
		return (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	return result{rps: pick(func(r result) float64 { return r.rps }), p99: pick(func(r result) float64 { return r.p99 }),
		cpuPerReq: pick(func(r result) float64 { return r.cpuPerReq })}
}

func list(v []float64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = fmt.Sprintf("%.2f", x)
	}
	return strings.Join(s, ", ")
}

// historyLua asks for a different page size on each request, so no answer
// cache of a few keys can stand in for the database.
const historyLua = `
local n = 0
request = function()
  n = n + 1
  return wrk.format("GET", "/history?limit=" .. ((n * 37) % 100 + 1))
end
`

// serveBare answers every GET with the file's bytes as JSON: what fiber
// costs alone.
func serveBare(arg string) {
	i := strings.LastIndexByte(arg, '@')
	body, err := os.ReadFile(arg[:i])
	must(err)
	app := fiber.New()
	app.Get("/*", func(c fiber.Ctx) error {
		c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
		return c.Send(body)
	})
	must(app.Listen("127.0.0.1:"+arg[i+1:], fiber.ListenConfig{DisableStartupMessage: true}))
}

func run(bin string, args ...string) *exec.Cmd { return runEnv(bin, nil, args...) }

func runEnv(bin string, env []string, args ...string) *exec.Cmd {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(append(os.Environ(), "DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent"), env...)
	cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
	must(cmd.Start())
	return cmd
}

func stop(cmd *exec.Cmd) { _ = cmd.Process.Kill(); _ = cmd.Wait() }

func waitOK(url string) {
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		res, err := http.Get(url)
		if err == nil {
			res.Body.Close()
			if res.StatusCode == 200 {
				return
			}
		}
		if time.Now().After(deadline) {
			must(fmt.Errorf("%s does not answer 200: %v", url, err))
		}
	}
}

func get(url string) []byte {
	res, err := http.Get(url)
	must(err)
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	must(err)
	if res.StatusCode != 200 {
		must(fmt.Errorf("GET %s: %d %s", url, res.StatusCode, b))
	}
	return b
}

func freeTCP() int {
	l, err := net.Listen("tcp4", "127.0.0.1:0")
	must(err)
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
