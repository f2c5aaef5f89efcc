package exepages

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Release drops the process's mappings of the pages of its executable that
// are not writable (see the package comment). Writable mappings (data,
// bss) are never touched: there MADV_DONTNEED would throw away what the
// program wrote.
func Release() (Stats, error) {
	exe, err := os.Executable()
	if err != nil {
		return Stats{}, fmt.Errorf("release executable pages: %w", err)
	}
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return Stats{}, fmt.Errorf("release executable pages: %w", err)
	}
	var st Stats
	for _, m := range readOnlyOf(maps, exe) {
		if _, _, errno := syscall.Syscall(syscall.SYS_MADVISE, m.start, m.end-m.start, syscall.MADV_DONTNEED); errno != 0 {
			return st, fmt.Errorf("release executable pages: madvise %x-%x: %w", m.start, m.end, errno)
		}
		st.Mappings++
		st.Bytes += int64(m.end - m.start)
	}
	return st, nil
}

type mapping struct{ start, end uintptr }

// readOnlyOf returns the mappings of file path in maps (/proc/self/maps,
// proc(5)) that are neither writable nor shared: the executable's text and
// read-only data.
func readOnlyOf(maps []byte, path string) []mapping {
	var out []mapping
	sc := bufio.NewScanner(bytes.NewReader(maps))
	for sc.Scan() {
		// address perms offset dev inode pathname
		f := strings.Fields(sc.Text())
		if len(f) < 6 {
			continue
		}
		name := strings.Join(f[5:], " ")
		if name != path && name != path+" (deleted)" { // the file replaced on disk since the start
			continue
		}
		perms := f[1]
		if len(perms) != 4 || perms[1] != '-' || perms[3] != 'p' {
			continue
		}
		lo, hi, ok := strings.Cut(f[0], "-")
		if !ok {
			continue
		}
		a, err1 := strconv.ParseUint(lo, 16, 64)
		b, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil || b <= a {
			continue
		}
		out = append(out, mapping{uintptr(a), uintptr(b)})
	}
	return out
}
