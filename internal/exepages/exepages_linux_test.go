package exepages

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/softphone/softphone/internal/testpeer"
)

func TestCleanReadOnlyOf(t *testing.T) {
	field := func(anon, swap, flags string) string {
		return "Size:                100 kB\nRss:                  40 kB\nAnonymous:            " + anon +
			" kB\nSwap:                 " + swap + " kB\nVmFlags: " + flags + "\n"
	}
	smaps := "00400000-00f00000 r-xp 00000000 fd:01 123 /opt/soft phone/softphone\n" + field("0", "0", "rd ex mr mw me") +
		"00f00000-01e00000 r--p 00b00000 fd:01 123 /opt/soft phone/softphone\n" + field("0", "0", "rd mr mw me") +
		"01e00000-01f00000 r--p 01a00000 fd:01 123 /opt/soft phone/softphone\n" + field("8", "0", "rd mr mw me") + // RELRO: relocated copies
		"01f00000-02000000 rw-p 01b00000 fd:01 123 /opt/soft phone/softphone\n" + field("0", "0", "rd wr mr mw me ac") +
		"02000000-02100000 rw-p 00000000 00:00 0\n" + field("40", "0", "rd wr mr mw me ac") +
		"7f0000000000-7f0000001000 r--p 00000000 fd:01 99 /usr/lib/x86_64-linux-gnu/libc.so.6\n" + field("0", "0", "rd mr mw me") +
		"7f0000002000-7f0000003000 r--s 00000000 fd:01 123 /opt/soft phone/softphone\n" + field("0", "0", "rd mr me ms") +
		"7f0000004000-7f0000005000 r-xp 00000000 fd:01 124 /opt/soft phone/softphone (deleted)\n" + field("0", "0", "rd ex mr mw me") +
		"7f0000006000-7f0000007000 r-xp 00000000 fd:01 123 /opt/soft phone/softphone\n" + field("0", "4", "rd ex mr mw me") +
		"7f0000008000-7f0000009000 r-xp 00000000 fd:01 123 /opt/soft phone/softphone\n" + field("0", "0", "rd ex mr mw me lo") +
		"7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0 [stack]\n" + field("12", "0", "rd wr mr mw me gd ac")
	got := cleanReadOnlyOf([]byte(smaps), "/opt/soft phone/softphone")
	want := []mapping{{0x400000, 0xf00000}, {0xf00000, 0x1e00000}, {0x7f0000004000, 0x7f0000005000}}
	if !slices.Equal(got, want) {
		t.Fatalf("cleanReadOnlyOf = %x, want %x (text and rodata, also of a replaced file; never data, a mapping with private copies, swapped or locked pages, shared ones or other files)", got, want)
	}
}

// Release unmaps the test binary's own code and read-only data: the
// process's file-backed RSS falls, and the program goes on running (what
// it runs next is mapped back from the page cache).
func TestRelease(t *testing.T) {
	before := testpeer.RssFileKB(t)
	st, err := Release()
	if err != nil {
		t.Fatal(err)
	}
	after := testpeer.RssFileKB(t)
	if st.Mappings < 2 || st.Bytes <= 0 {
		t.Fatalf("Release advised %+v; want the text and the read-only data", st)
	}
	if after >= before {
		t.Fatalf("RssFile %d kB before, %d kB after", before, after)
	}
	t.Logf("advised %d mappings, %.1f MB; RssFile %d -> %d kB", st.Mappings, float64(st.Bytes)/1e6, before, after)
	// The code runs on, and the data it reads (rodata, pclntab) is intact.
	if s := strconv.Itoa(12345) + strings.Repeat("x", 2); s != "12345xx" {
		t.Fatalf("after Release: %q", s)
	}
}
