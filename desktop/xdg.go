package desktop

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// The XDG files (Desktop Entry Specification 1.5; Desktop Application
// Autostart Specification): the link handler in
// ~/.local/share/applications, the start at login in ~/.config/autostart.
func xdgEntryPath(t Target) string {
	return filepath.Join(t.UserHome, ".local", "share", "applications", "softphone.desktop")
}

func xdgAutostartPath(t Target) string {
	return filepath.Join(t.UserHome, ".config", "autostart", "softphone.desktop")
}

// execArg writes one argument of an Exec line (Desktop Entry spec, "The
// Exec key"). An argument holding a reserved character (space, quotes, $,
// ;, ...) is put in double quotes, inside which ", `, $ and \ are escaped;
// any other is written bare, as the spec allows: xdg-open without a known
// desktop (xdg-utils' generic mode, the one Chromium's links take under i3,
// sway and other bare window managers) splits the line at spaces and keeps
// the quotes as part of the words, so a quoted "/usr/bin/softphone" was no
// program and no link was ever dialled. % is doubled either way, as it
// starts field codes. Newlines and backslashes are refused: a backslash
// passes two unescaping rules and is easily got wrong.
func execArg(s string) (string, error) {
	if s == "" || strings.ContainsAny(s, "\n\r\\") {
		return "", fmt.Errorf("%w: %q", ErrBadPath, s)
	}
	s = strings.ReplaceAll(s, "%", "%%")
	if !strings.ContainsAny(s, execReserved) {
		return s, nil
	}
	r := strings.NewReplacer(`"`, `\"`, "`", "\\`", "$", `\$`)
	return `"` + r.Replace(s) + `"`, nil
}

// execReserved are the characters that make an Exec argument need quotes
// (Desktop Entry spec, "The Exec key"); \ and newline are refused anyway.
const execReserved = " \t\"'><~|&;$*?#()`"

// xdgExec is the Exec value: binary, --home HOME (when set), then rest.
func xdgExec(t Target, rest ...string) (string, error) {
	parts := []string{}
	for _, a := range append([]string{t.Binary}, homeArgs(t)...) {
		q, err := execArg(a)
		if err != nil {
			return "", err
		}
		parts = append(parts, q)
	}
	return strings.Join(append(parts, rest...), " "), nil
}

// homeArgs pass the phone's home on, so a link reaches this phone.
func homeArgs(t Target) []string {
	if t.PhoneHome == "" {
		return nil
	}
	return []string{"--home", t.PhoneHome}
}

func installXDG(t Target) ([]string, error) {
	exec, err := xdgExec(t, "dial", "%u")
	if err != nil {
		return nil, err
	}
	entry := "[Desktop Entry]\n" +
		"Type=Application\n" +
		"Version=1.5\n" +
		"Name=Softphone\n" +
		"GenericName=SIP phone\n" +
		"Comment=Call tel:, sip: and callto: links with the softphone\n" +
		"Exec=" + exec + "\n" +
		"Terminal=false\n" +
		"NoDisplay=false\n" +
		"Categories=Network;Telephony;\n" +
		"MimeType=x-scheme-handler/tel;x-scheme-handler/sip;x-scheme-handler/callto;\n"
	path := xdgEntryPath(t)
	if err := writeFile(path, []byte(entry), 0o644); err != nil {
		return nil, err
	}
	return []string{path}, nil
}

func loginXDG(t Target, on bool) (string, error) {
	path := xdgAutostartPath(t)
	if !on {
		if gone, err := removeFile(path); err != nil || !gone {
			return "", err
		}
		return path, nil
	}
	exec, err := xdgExec(t, "--no-browser")
	if err != nil {
		return "", err
	}
	entry := "[Desktop Entry]\nType=Application\nName=Softphone\nComment=SIP phone\n" +
		"Exec=" + exec + "\nTerminal=false\nX-GNOME-Autostart-enabled=true\n"
	return path, writeFile(path, []byte(entry), 0o644)
}

func uninstallXDG(t Target) ([]string, error) {
	path := xdgEntryPath(t)
	gone, err := removeFile(path)
	if err != nil || !gone {
		return nil, err
	}
	return []string{path}, nil
}

func checkXDG(t Target) Status {
	st := Status{OS: t.OS}
	links, _ := xdgExec(t, "dial", "%u")
	login, _ := xdgExec(t, "--no-browser")
	st.Links = xdgItem(xdgEntryPath(t), links)
	st.Login = xdgItem(xdgAutostartPath(t), login)
	return st
}

// xdgItem reads the Exec line of a desktop entry and compares it.
func xdgItem(path, want string) Item {
	v, found, err := xdgExecLine(path)
	switch {
	case err != nil:
		return Item{State: StateNone}
	case !found:
		return Item{State: StateOther, Where: path}
	case slices.Equal(execWords(v), execWords(want)):
		return Item{State: StateOurs, Where: path}
	}
	return Item{State: StateOther, Where: path + ": " + v}
}

// xdgExecLine is the Exec value of a desktop entry; err when it cannot be
// opened, found false when it has none.
func xdgExecLine(path string) (line string, found bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", false, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "Exec="); ok {
			return v, true, nil
		}
	}
	return "", false, nil
}

// xdgStale says the entry at path is this phone's (the same program and
// arguments as want) but not written as want is: an earlier version's,
// which quoted every argument, so xdg-open without a known desktop could
// not run it (see execArg).
func xdgStale(path, want string) bool {
	v, found, err := xdgExecLine(path)
	return err == nil && found && v != want && slices.Equal(execWords(v), execWords(want))
}

// refreshXDG writes again the entries of this phone that an earlier version
// wrote in the older form; an entry of another program, or none, is left
// as it is.
func refreshXDG(t Target) ([]string, error) {
	var wrote []string
	links, err := xdgExec(t, "dial", "%u")
	if err != nil {
		return nil, err
	}
	if xdgStale(xdgEntryPath(t), links) {
		w, err := installXDG(t)
		if err != nil {
			return nil, err
		}
		wrote = append(wrote, w...)
	}
	login, err := xdgExec(t, "--no-browser")
	if err != nil {
		return wrote, err
	}
	if xdgStale(xdgAutostartPath(t), login) {
		w, err := loginXDG(t, true)
		if err != nil {
			return wrote, err
		}
		wrote = append(wrote, w)
	}
	return wrote, nil
}

// execWords splits an Exec line into its arguments (quotes taken away,
// escapes inside them undone; field codes left as they are), so an entry
// written by an earlier version, which quoted every argument, is still
// known as ours.
func execWords(line string) []string {
	var words []string
	var w strings.Builder
	in, quoted, esc := false, false, false
	for _, r := range line {
		switch {
		case esc:
			w.WriteRune(r)
			esc = false
		case quoted && r == '\\':
			esc = true
		case r == '"':
			quoted = !quoted
			in = true
		case !quoted && r == ' ':
			if in {
				words = append(words, w.String())
				w.Reset()
			}
			in = false
		default:
			w.WriteRune(r)
			in = true
		}
	}
	if in {
		words = append(words, w.String())
	}
	return words
}
