// Command api measures the local control API as an integration sees it
// (issue 20): the real phone binary with the API on, against a bare fiber v3
// server answering the very same bytes, both loaded by wrk with the same
// connections in the same run. It prints req/s and p99 side by side for
//
//   - GET /calls (the anchor: bare fiber serving the phone's own answer);
//   - GET /history with a limit drawn per request from 1..100 over 100,000
//     finished calls (the anchor: bare fiber serving the limit=100 answer).
//
// Run it inside `unshare -n` (it only uses 127.0.0.1):
//
//	go run ./bench/api [-conns 64 -secs 5]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/gofiber/fiber/v3"
	"github.com/softphone/softphone/bench/internal/rig"
)

func main() {
	conns := flag.Int("conns", 64, "wrk connections")
	secs := flag.Int("secs", 5, "seconds per wrk run")
	rows := flag.Int("rows", 100_000, "history rows")
	bare := flag.String("bare", "", "internal: serve the body in this file as a bare fiber server")
	prof := flag.String("pprof", "", "save CPU profiles of the phone under the first softphone run of each path here (PATH.calls, PATH.history; the binary at PATH.bin)")
	flag.Parse()
	if *bare != "" {
		serveBare(*bare)
		return
	}
	dir, err := os.MkdirTemp("", "softphone-api-bench-")
	must(err)
	defer os.RemoveAll(dir)
	tb := &rig.TB{}
	defer tb.Close()
	bin := rig.BuildPhone(tb, dir, *prof != "")
	home := filepath.Join(dir, "home")
	must(fillHistory(filepath.Join(home, "softphone.db"), *rows))
	port := freeTCP()
	st := map[string]any{"api": map[string]any{"enabled": true, "port": port}, "integration": map[string]any{"enabled": true}}
	b, _ := json.Marshal(st)
	must(os.WriteFile(filepath.Join(home, "settings.json"), b, 0o600))
	pprofAddr := fmt.Sprintf("127.0.0.1:%d", freeTCP())
	phone := runEnv(bin, []string{"SOFTPHONE_PPROF=" + pprofAddr}, "--home", home, "--no-browser", "--log-level", "error")
	defer stop(phone)
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	waitOK(base + "/calls")

	self, err := os.Executable()
	must(err)
	fmt.Printf("machine: %s, wrk -t2 -c%d -d%ds, softphone and bare fiber v3 alike\n", rig.Machine(), *conns, *secs)
	for _, m := range []struct{ name, path, lua, body, prof string }{
		{"GET /calls", "/calls", "", "/calls", ".calls"},
		{"GET /history limit 1..100", "/history", historyLua, "/history?limit=100", ".history"},
	} {
		body := get(base + m.body)
		f := filepath.Join(dir, "body")
		must(os.WriteFile(f, body, 0o600))
		bp := freeTCP()
		bs := run(self, "-bare", f+"@"+fmt.Sprint(bp))
		bbase := fmt.Sprintf("http://127.0.0.1:%d", bp)
		waitOK(bbase + "/")
		script := ""
		if m.lua != "" {
			script = filepath.Join(dir, "req.lua")
			must(os.WriteFile(script, []byte(m.lua), 0o600))
		}
		// Alternating runs, so load from elsewhere falls on both alike.
		for i := range 2 {
			profDone := make(chan error, 1)
			br, bp99 := wrk(bbase+m.path, script, *conns, *secs)
			if *prof != "" && i == 0 {
				go func() {
					profDone <- rig.FetchProfile(pprofAddr, fmt.Sprintf("profile?seconds=%d", max(1, *secs-1)), *prof+m.prof)
				}()
			} else {
				profDone <- nil
			}
			pr, pp99 := wrk(base+m.path, script, *conns, *secs)
			must(<-profDone)
			fmt.Printf("%-27s softphone %7.0f req/s p99 %6.2f ms | bare fiber %7.0f req/s p99 %6.2f ms | ratio %.2f, p99 x%.1f\n",
				m.name, pr, pp99, br, bp99, pr/br, pp99/bp99)
		}
		stop(bs)
	}
	if *prof != "" {
		b, err := os.ReadFile(bin)
		must(err)
		must(os.WriteFile(*prof+".bin", b, 0o755))
	}
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

// wrk is rig.Wrk that stops the program on failure.
func wrk(url, script string, conns, secs int) (float64, float64) {
	rps, p99, err := rig.Wrk(url, script, conns, secs)
	must(err)
	return rps, p99
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
