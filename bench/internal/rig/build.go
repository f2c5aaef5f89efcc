package rig

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
)

// BuildPhone makes the phone's binary as users get it (CGO off, as
// scripts/e2e.sh) in dir. With pprof, net/http/pprof is added to its main
// package (through go build -overlay, so the tree is untouched), listening
// on the address in SOFTPHONE_PPROF; the profiler costs CPU itself.
func BuildPhone(tb *TB, dir string, pprof bool) string {
	bin := filepath.Join(dir, "softphone")
	args := []string{"build", "-o", bin}
	if pprof {
		// memory.counters: modernc.org/memory counts what SQLite's
		// allocator holds (served at /debug/libc).
		args = append(args, "-overlay", pprofOverlay(tb), "-tags", "memory.counters")
	}
	cmd := exec.Command("go", append(args, "./cmd/softphone")...)
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}

const pprofSource = `package main

import (
	"fmt"
	"net/http"
	_ "net/http/pprof"
	"os"

	"modernc.org/libc"
)

func init() {
	if a := os.Getenv("SOFTPHONE_PPROF"); a != "" {
		http.HandleFunc("/debug/libc", func(w http.ResponseWriter, _ *http.Request) {
			s := libc.MemStat()
			fmt.Fprintf(w, "sqlite allocator: %d allocations, %d bytes in %d mappings\n", s.Allocs, s.Bytes, s.Mmaps)
		})
		go func() { _ = http.ListenAndServe(a, nil) }()
	}
}
`

func pprofOverlay(tb *TB) string {
	dir := tb.TempDir()
	src := filepath.Join(dir, "zz_bench_pprof.go")
	abs, err := filepath.Abs(filepath.Join("cmd", "softphone", "zz_bench_pprof.go"))
	if err != nil {
		tb.Fatal(err)
	}
	ov, _ := json.Marshal(map[string]any{"Replace": map[string]string{abs: src}})
	if err := os.WriteFile(src, []byte(pprofSource), 0o644); err != nil {
		tb.Fatal(err)
	}
	path := filepath.Join(dir, "overlay.json")
	if err := os.WriteFile(path, ov, 0o644); err != nil {
		tb.Fatal(err)
	}
	return path
}

// FetchProfile saves what the phone's /debug/pprof/<what> answers (e.g.
// "profile?seconds=10", "heap") at path.
func FetchProfile(addr, what, path string) error {
	resp, err := http.Get(fmt.Sprintf("http://%s/debug/pprof/%s", addr, what))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
