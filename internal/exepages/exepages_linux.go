package exepages

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// Release drops the process's mappings of the pages of its executable that
// are not writable and that hold nothing of the process's own (see the
// package comment). Writable mappings (data, bss) are never touched: there
// MADV_DONTNEED would throw away what the program wrote; nor is a
// read-only one with private copies of its pages (smaps "Anonymous" or
// "Swap" above zero): relocations applied before it was made read-only
// (RELRO of a PIE build), a debugger's breakpoints. Those would be lost.
func Release() (Stats, error) {
	exe, err := os.Executable()
	if err != nil {
		return Stats{}, fmt.Errorf("release executable pages: %w", err)
	}
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		return Stats{}, fmt.Errorf("release executable pages: %w", err)
	}
	var st Stats
	for _, m := range cleanReadOnlyOf(smaps, exe) {
		if _, _, errno := syscall.Syscall(syscall.SYS_MADVISE, m.start, m.end-m.start, syscall.MADV_DONTNEED); errno != 0 {
			return st, fmt.Errorf("release executable pages: madvise %x-%x: %w", m.start, m.end, errno)
		}
		st.Mappings++
		st.Bytes += int64(m.end - m.start)
	}
	return st, nil
}

type mapping struct{ start, end uintptr }

// cleanReadOnlyOf returns the mappings of file path in smaps
// (/proc/self/smaps, proc(5)) that are private, neither writable nor
// locked, and hold no private copy of a page: the executable's text and
// read-only data as the file has them.
func cleanReadOnlyOf(smaps []byte, path string) []mapping {
	var out []mapping
	var cur mapping
	ok := false // cur is a candidate so far
	flush := func() {
		if ok {
			out = append(out, cur)
		}
		ok = false
	}
	sc := bufio.NewScanner(bytes.NewReader(smaps))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		if m, isHeader := header(f, path); isHeader {
			flush()
			cur, ok = m, m.end > m.start
			continue
		}
		if !ok {
			continue
		}
		switch f[0] {
		case "Anonymous:", "Swap:":
			if len(f) < 2 || f[1] != "0" {
				ok = false
			}
		case "VmFlags:":
			if slices.Contains(f[1:], "lo") { // mlock'ed: madvise refuses, and they are meant to stay
				ok = false
			}
		}
	}
	flush()
	return out
}

// header reads the first line of a mapping in smaps (address perms offset
// dev inode pathname). ok: f is such a line; m is then non-empty only for a
// private, read-only mapping of path.
func header(f []string, path string) (m mapping, ok bool) {
	if len(f) < 5 || !strings.Contains(f[0], "-") || len(f[1]) != 4 || strings.HasSuffix(f[0], ":") {
		return mapping{}, false
	}
	lo, hi, found := strings.Cut(f[0], "-")
	a, err1 := strconv.ParseUint(lo, 16, 64)
	b, err2 := strconv.ParseUint(hi, 16, 64)
	if !found || err1 != nil || err2 != nil {
		return mapping{}, false
	}
	name := strings.Join(f[5:], " ")
	if name != path && name != path+" (deleted)" { // the file replaced on disk since the start
		return mapping{}, true
	}
	if perms := f[1]; perms[1] != '-' || perms[3] != 'p' {
		return mapping{}, true
	}
	return mapping{uintptr(a), uintptr(b)}, true
}
