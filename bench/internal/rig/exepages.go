package rig

import (
	"debug/elf"
	"encoding/binary"
	"fmt"
	"os"
	"sort"
	"strings"
)

// pageSize is the page of /proc/<pid>/pagemap: 4 kB on the machines the
// benchmarks run on (amd64, arm64 with 4 kB pages).
const pageSize = 4096

// ExeResident is what of its executable a process has mapped now: the
// bytes present in its page tables per ELF section, and the text's by
// package (to see which code an idle phone runs, or which the garbage
// collector's stack scans touch).
type ExeResident struct {
	Sections []Resident // in the executable's order
	TextPkgs []Resident // largest first
}

// Resident is a name and the bytes of it that are mapped.
type Resident struct {
	Name  string
	Bytes int64
}

func (r ExeResident) String() string {
	var b strings.Builder
	for i, s := range r.Sections {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %.1f", s.Name, float64(s.Bytes)/(1<<20))
	}
	b.WriteString(" MB; text by package:")
	for i, p := range r.TextPkgs {
		if i == 8 {
			break
		}
		fmt.Fprintf(&b, " %s %.0f kB", p.Name, float64(p.Bytes)/1024)
	}
	return b.String()
}

// ExeResidentOf reads /proc/<pid>/pagemap (proc(5); the present bit needs
// no privilege, the page frame would) over the sections of bin, the
// executable of process pid, which must not be position-independent (Go's
// default on amd64: the sections' addresses are where they are mapped).
// In the writable sections a page counts whether the process wrote it
// (anonymous now) or only read it (still the file's).
func ExeResidentOf(pid int, bin string) (ExeResident, error) {
	f, err := elf.Open(bin)
	if err != nil {
		return ExeResident{}, err
	}
	defer f.Close()
	if f.Type != elf.ET_EXEC {
		return ExeResident{}, fmt.Errorf("%s: not a fixed-address executable", bin)
	}
	pm, err := os.Open(fmt.Sprintf("/proc/%d/pagemap", pid))
	if err != nil {
		return ExeResident{}, err
	}
	defer pm.Close()
	// present reports, for each page of [lo, hi), whether it is mapped.
	present := func(lo, hi uint64) ([]bool, uint64, error) {
		first, last := lo/pageSize, (hi+pageSize-1)/pageSize
		buf := make([]byte, 8*(last-first))
		if _, err := pm.ReadAt(buf, int64(first*8)); err != nil {
			return nil, 0, err
		}
		out := make([]bool, last-first)
		for i := range out {
			out[i] = binary.LittleEndian.Uint64(buf[8*i:])&(1<<63) != 0
		}
		return out, first * pageSize, nil
	}
	var r ExeResident
	var text *elf.Section
	for _, s := range f.Sections {
		if s.Flags&elf.SHF_ALLOC == 0 || s.Addr == 0 || s.Size == 0 {
			continue
		}
		pages, _, err := present(s.Addr, s.Addr+s.Size)
		if err != nil {
			return ExeResident{}, fmt.Errorf("pagemap of %s: %w", s.Name, err)
		}
		n := int64(0)
		for _, p := range pages {
			if p {
				n += pageSize
			}
		}
		r.Sections = append(r.Sections, Resident{s.Name, n})
		if s.Name == ".text" {
			text = s
		}
	}
	if text == nil {
		return r, nil
	}
	syms, err := f.Symbols()
	if err != nil {
		return r, nil // stripped: sections only
	}
	pages, base, err := present(text.Addr, text.Addr+text.Size)
	if err != nil {
		return ExeResident{}, err
	}
	// Each mapped page of text goes to the package of the function that
	// starts nearest before the page's middle.
	var funcs []elf.Symbol
	for _, s := range syms {
		if elf.ST_TYPE(s.Info) == elf.STT_FUNC && s.Value >= text.Addr && s.Value < text.Addr+text.Size {
			funcs = append(funcs, s)
		}
	}
	sort.Slice(funcs, func(i, j int) bool { return funcs[i].Value < funcs[j].Value })
	byPkg := map[string]int64{}
	for i, p := range pages {
		if !p {
			continue
		}
		mid := base + uint64(i)*pageSize + pageSize/2
		j := sort.Search(len(funcs), func(k int) bool { return funcs[k].Value > mid }) - 1
		name := "?"
		if j >= 0 {
			name = pkgOf(funcs[j].Name)
		}
		byPkg[name] += pageSize
	}
	for k, v := range byPkg {
		r.TextPkgs = append(r.TextPkgs, Resident{k, v})
	}
	sort.Slice(r.TextPkgs, func(i, j int) bool { return r.TextPkgs[i].Bytes > r.TextPkgs[j].Bytes })
	return r, nil
}

// pkgOf is the package path of a Go symbol name
// ("github.com/emiago/sipgo/sip.(*Msg).Foo" -> "github.com/emiago/sipgo/sip").
func pkgOf(sym string) string {
	slash := strings.LastIndexByte(sym, '/')
	if dot := strings.IndexByte(sym[slash+1:], '.'); dot >= 0 {
		return sym[:slash+1+dot]
	}
	return sym
}
