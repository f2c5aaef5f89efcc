// Package desktop puts the phone into the user's desktop: the handler of
// tel:, sip: and callto: links (running `softphone dial URI`) and the start
// at login, on Linux (XDG desktop entries), Windows (HKCU registry) and
// macOS (an .app bundle in ~/Applications and a LaunchAgent); Uninstall
// takes both away and Check says what is in place. It writes only inside
// the user's own space (home folder, HKEY_CURRENT_USER): no administrator
// rights are needed. It imports nothing of ours.
package desktop

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
)

// Schemes are the link schemes the phone handles.
var Schemes = []string{"tel", "sip", "callto"}

// Target says whose desktop and which phone.
type Target struct {
	OS        string // "linux" (any XDG desktop), "windows", "darwin"; "" = runtime.GOOS
	UserHome  string // the user's home folder (XDG, macOS); "" = os.UserHomeDir
	Binary    string // the softphone binary the entries run
	PhoneHome string // the phone's --home, passed on so links reach this phone
}

// fill gives the defaults.
func (t Target) fill() (Target, error) {
	if t.OS == "" {
		t.OS = runtime.GOOS
	}
	if t.UserHome == "" && t.OS != "windows" {
		h, err := os.UserHomeDir()
		if err != nil {
			return t, fmt.Errorf("desktop: no home folder: %w", err)
		}
		t.UserHome = h
	}
	if t.Binary == "" {
		return t, fmt.Errorf("%w: no binary path", ErrBadPath)
	}
	return t, nil
}

// State of one integration.
const (
	StateNone  = "none"  // not set up
	StateOurs  = "ours"  // set up for this binary and home
	StateOther = "other" // set up, but for another program or another copy
)

// Item is one integration on this computer.
type Item struct {
	State string // StateNone, StateOurs, StateOther
	Where string // the file or registry key; for StateOther also what it runs
}

// Status is what Check finds.
type Status struct {
	OS    string
	Links Item // tel:, sip:, callto: handler
	Login Item // start at login
}

// Install makes the phone the handler of tel:, sip: and callto: links and
// returns what it wrote (files or registry keys).
func Install(t Target) ([]string, error) {
	t, err := t.fill()
	if err != nil {
		return nil, err
	}
	switch t.OS {
	case "windows":
		return installWindows(t)
	case "darwin":
		return installMac(t)
	}
	return installXDG(t)
}

// SetStartAtLogin writes (on) or removes (off) the entry that starts the
// phone, without opening its page, when the user logs in; it returns the
// file or registry value.
func SetStartAtLogin(t Target, on bool) (string, error) {
	t, err := t.fill()
	if err != nil {
		return "", err
	}
	switch t.OS {
	case "windows":
		return loginWindows(t, on)
	case "darwin":
		return loginMac(t, on)
	}
	return loginXDG(t, on)
}

// Refresh writes again this phone's own integrations that an earlier
// version wrote in a form this one no longer writes, and returns what it
// rewrote: on Linux the XDG entries that quoted every argument, which
// xdg-open without a known desktop cannot run. Nothing is written where
// nothing of this phone is in place, nor over another program's entry.
func Refresh(t Target) ([]string, error) {
	t, err := t.fill()
	if err != nil {
		return nil, err
	}
	switch t.OS {
	case "windows", "darwin":
		return nil, nil
	}
	return refreshXDG(t)
}

// Uninstall removes the link handler and the start at login, and returns
// what it removed. Entries of other programs are left alone.
func Uninstall(t Target) ([]string, error) {
	t, err := t.fill()
	if err != nil {
		return nil, err
	}
	var removed []string
	switch t.OS {
	case "windows":
		removed, err = uninstallWindows(t)
	case "darwin":
		removed, err = uninstallMac(t)
	default:
		removed, err = uninstallXDG(t)
	}
	if err != nil {
		return removed, err
	}
	if where, err := SetStartAtLogin(t, false); err != nil {
		return removed, err
	} else if where != "" {
		removed = append(removed, where)
	}
	return removed, nil
}

// Check says which integrations are in place for this binary and home.
func Check(t Target) Status {
	t, err := t.fill()
	if err != nil {
		return Status{OS: t.OS, Links: Item{State: StateNone}, Login: Item{State: StateNone}}
	}
	switch t.OS {
	case "windows":
		return checkWindows(t)
	case "darwin":
		return checkMac(t)
	}
	return checkXDG(t)
}

// removeFile removes path and says whether it was there.
func removeFile(path string) (bool, error) {
	err := os.Remove(path)
	if err == nil {
		return true, nil
	}
	if os.IsNotExist(err) {
		return false, nil
	}
	return false, fmt.Errorf("desktop: %w", err)
}

// writeFile writes data to path atomically (temp file, rename), making the
// folder.
func writeFile(path string, data []byte, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("desktop: %w", err)
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, mode); err != nil {
		return fmt.Errorf("desktop: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("desktop: %w", err)
	}
	return nil
}
