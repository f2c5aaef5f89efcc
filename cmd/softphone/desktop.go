package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/softphone/softphone/desktop"
)

// desktopTarget is this binary and home on the user's desktop.
func desktopTarget(o options) (desktop.Target, error) {
	exe, err := os.Executable()
	if err != nil {
		return desktop.Target{}, err
	}
	if real, err := filepath.EvalSymlinks(exe); err == nil {
		exe = real
	}
	return desktop.Target{Binary: exe, PhoneHome: o.home}, nil
}

// installDesktop registers the phone for tel:, sip: and callto: links: an
// XDG desktop entry, the HKCU registry on Windows, an .app bundle on macOS.
func installDesktop(o options, stdout io.Writer) error {
	t, err := desktopTarget(o)
	if err != nil {
		return err
	}
	wrote, err := desktop.Install(t)
	if err != nil {
		return err
	}
	for _, w := range wrote {
		fmt.Fprintln(stdout, "link handler written:", w)
	}
	return nil
}

// uninstallDesktop removes the link handler and the start at login; the
// handlers of other programs stay.
func uninstallDesktop(o options, stdout io.Writer) error {
	t, err := desktopTarget(o)
	if err != nil {
		return err
	}
	removed, err := desktop.Uninstall(t)
	for _, r := range removed {
		fmt.Fprintln(stdout, "removed:", r)
	}
	if err == nil && len(removed) == 0 {
		fmt.Fprintln(stdout, "no desktop integration of the softphone was in place")
	}
	return err
}

// syncStartAtLogin makes the start at login follow startup.start_at_login
// whichever way it was changed (Settings page, PATCH /settings, the file):
// written when on and not in place for this binary and home, removed when
// off and it is ours. A failure is logged; the phone runs on.
func syncStartAtLogin(o options, on bool, log *slog.Logger) {
	t, err := desktopTarget(o)
	if err != nil {
		log.Warn("start at login: no binary path", "err", err)
		return
	}
	ours := desktop.Check(t).Login.State == desktop.StateOurs
	if on == ours {
		return
	}
	where, err := desktop.SetStartAtLogin(t, on)
	if err != nil {
		log.Warn("start at login not changed", "on", on, "err", err)
		return
	}
	log.Info("start at login changed", "on", on, "where", where)
}

// refreshDesktop brings the desktop integration an earlier version of the
// phone put in place up to this version's form at each start (a tel: link
// under a bare window manager reaches the phone only through the current
// XDG entry), so nobody has to run install-desktop again after an update.
// A failure is logged; the phone runs on.
func refreshDesktop(o options, log *slog.Logger) {
	t, err := desktopTarget(o)
	if err != nil {
		log.Warn("desktop integration: no binary path", "err", err)
		return
	}
	wrote, err := desktop.Refresh(t)
	if err != nil {
		log.Warn("desktop integration not brought up to date", "err", err)
	}
	for _, w := range wrote {
		log.Info("desktop integration brought up to date", "where", w)
	}
}
