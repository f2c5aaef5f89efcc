//go:build linux

package desktop

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestXDGLinkReachesThePhoneThroughXdgOpen: a tel: link opened by the real
// xdg-open without a known desktop (xdg-utils' generic mode: what Chromium
// runs for a link under i3, sway or any bare window manager) runs the
// installed entry's program with --home HOME dial URI. Every argument was
// quoted, and generic mode keeps the quotes as part of the words: it ran
// `"/…/softphone"` (no such program), and no link was ever dialled.
func TestXDGLinkReachesThePhoneThroughXdgOpen(t *testing.T) {
	xdgOpen, err := exec.LookPath("xdg-open")
	if err != nil {
		t.Skip("no xdg-open (Debian package xdg-utils)")
	}
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	bin := filepath.Join(dir, "bin", "softphone")
	got := filepath.Join(dir, "args")
	// The phone's stand-in writes its arguments, one a line.
	if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > '" + got + "'\n"
	if err := os.WriteFile(bin, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	phoneHome := filepath.Join(home, ".config", "softphone")
	tg := Target{OS: "linux", UserHome: home, Binary: bin, PhoneHome: phoneHome}
	if _, err := Install(tg); err != nil {
		t.Fatal(err)
	}
	if st := Check(tg); st.Links.State != StateOurs {
		t.Fatalf("after install: %+v", st.Links)
	}
	link := "tel:+49 30 1234;$(id)`id`'\""
	cmd := exec.Command(xdgOpen, link)
	empty := filepath.Join(dir, "empty") // no system entries: only ours handles tel:
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "DISPLAY=:99",
		"XDG_DATA_DIRS=" + empty, "XDG_CONFIG_DIRS=" + empty}
	out, err := cmd.CombinedOutput() // generic mode runs the program and waits for it
	if err != nil {
		t.Fatalf("xdg-open %s: %v\n%s", link, err, out)
	}
	b, err := os.ReadFile(got)
	if err != nil {
		t.Fatalf("the phone was not run: %v\nxdg-open said: %s", err, out)
	}
	want := []string{"--home", phoneHome, "dial", link}
	if args := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n"); !slices.Equal(args, want) {
		t.Errorf("the phone got %q, want %q", args, want)
	}
}

// TestXDGEntryOfAnEarlierVersionIsOurs: an entry written with every
// argument quoted (before TestXDGLinkReachesThePhoneThroughXdgOpen's fix)
// runs the same program with the same arguments: Check says it is ours.
func TestXDGEntryOfAnEarlierVersionIsOurs(t *testing.T) {
	home := t.TempDir()
	tg := Target{OS: "linux", UserHome: home, Binary: "/usr/bin/softphone", PhoneHome: "/home/u/.config/softphone"}
	entry := "[Desktop Entry]\nType=Application\nName=Softphone\n" +
		`Exec="/usr/bin/softphone" "--home" "/home/u/.config/softphone" dial %u` + "\n"
	if err := writeFile(xdgEntryPath(tg), []byte(entry), 0o644); err != nil {
		t.Fatal(err)
	}
	if st := Check(tg); st.Links.State != StateOurs {
		t.Errorf("an earlier version's entry: %+v", st.Links)
	}
	other := tg
	other.PhoneHome = "/home/u/other"
	if st := Check(other); st.Links.State != StateOther {
		t.Errorf("another home sees %+v", st.Links)
	}
}

// TestRefreshRewritesAnEarlierVersionsEntries: the phone's start brings an
// entry of an earlier version (every argument quoted, which xdg-open's
// generic mode cannot run) to this version's form; an entry of another
// program and an entry already current are not written.
func TestRefreshRewritesAnEarlierVersionsEntries(t *testing.T) {
	home := t.TempDir()
	tg := Target{OS: "linux", UserHome: home, Binary: "/usr/bin/softphone", PhoneHome: "/home/u/.config/softphone"}
	if wrote, err := Refresh(tg); err != nil || len(wrote) != 0 {
		t.Fatalf("nothing in place: wrote %v, %v", wrote, err)
	}
	old := "[Desktop Entry]\nType=Application\nName=Softphone\n" +
		`Exec="/usr/bin/softphone" "--home" "/home/u/.config/softphone" dial %u` + "\n"
	oldLogin := "[Desktop Entry]\nType=Application\nName=Softphone\n" +
		`Exec="/usr/bin/softphone" "--home" "/home/u/.config/softphone" "--no-browser"` + "\n"
	if err := writeFile(xdgEntryPath(tg), []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeFile(xdgAutostartPath(tg), []byte(oldLogin), 0o644); err != nil {
		t.Fatal(err)
	}
	wrote, err := Refresh(tg)
	if err != nil || len(wrote) != 2 {
		t.Fatalf("earlier version's entries: wrote %v, %v", wrote, err)
	}
	want, _ := xdgExec(tg, "dial", "%u")
	if v, _, _ := xdgExecLine(xdgEntryPath(tg)); v != want || strings.Contains(v, `"`) {
		t.Errorf("link entry after refresh: Exec=%s, want %s", v, want)
	}
	wantLogin, _ := xdgExec(tg, "--no-browser")
	if v, _, _ := xdgExecLine(xdgAutostartPath(tg)); v != wantLogin {
		t.Errorf("login entry after refresh: Exec=%s, want %s", v, wantLogin)
	}
	if wrote, err := Refresh(tg); err != nil || len(wrote) != 0 {
		t.Errorf("current entries written again: %v, %v", wrote, err)
	}
	other := "[Desktop Entry]\nType=Application\nName=Other\nExec=\"/usr/bin/otherphone\" \"%u\"\n"
	if err := writeFile(xdgEntryPath(tg), []byte(other), 0o644); err != nil {
		t.Fatal(err)
	}
	if wrote, err := Refresh(tg); err != nil || len(wrote) != 0 {
		t.Errorf("another program's entry written over: %v, %v", wrote, err)
	}
	if b, _ := os.ReadFile(xdgEntryPath(tg)); string(b) != other {
		t.Errorf("another program's entry changed:\n%s", b)
	}
}
