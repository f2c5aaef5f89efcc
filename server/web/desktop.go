package web

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// urlFile is where Listen notes the pages' address (no key) in the home
// folder, so `softphone dial URI` can hand a link to the running phone.
const urlFile = "ui-url"

func (s *Server) writeURLFile() {
	if s.cfg.Home == "" {
		return
	}
	if err := os.WriteFile(filepath.Join(s.cfg.Home, urlFile), []byte(s.Origin()+"\n"), 0o600); err != nil {
		s.log.Warn("web: cannot note the page address", "err", err)
	}
}

// DialURL is the page that dials uri (a tel:, sip: or callto: link) on the
// phone running with this home folder: http://127.0.0.1:PORT/dial?uri=...
// The lead's `softphone dial URI` opens it in the browser, where the session
// cookie of the phone's tab lets it through.
func DialURL(home, uri string) (string, error) {
	b, err := os.ReadFile(filepath.Join(home, urlFile))
	if err != nil {
		return "", fmt.Errorf("is the phone running? %w", err)
	}
	origin := strings.TrimSpace(string(b))
	return origin + "/dial?uri=" + url.QueryEscape(uri), nil
}

// InstallDesktopEntry writes ~/.local/share/applications/softphone.desktop
// (XDG desktop entry spec) that makes the phone the handler of tel:, sip: and
// callto: links: the desktop runs `<binary> dial <link>`. It returns the
// file's path. Registering it as the default handler is
// `xdg-mime default softphone.desktop x-scheme-handler/tel` (and sip,
// callto); the caller may run that.
func InstallDesktopEntry(home, binaryPath string) (string, error) {
	if binaryPath == "" || strings.ContainsAny(binaryPath, "\n\r\"`$\\") {
		return "", fmt.Errorf("%w: %q", ErrBadDesktopEntry, binaryPath)
	}
	dir := filepath.Join(home, ".local", "share", "applications")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("desktop entry: %w", err)
	}
	path := filepath.Join(dir, "softphone.desktop")
	entry := "[Desktop Entry]\n" +
		"Type=Application\n" +
		"Version=1.5\n" +
		"Name=Softphone\n" +
		"GenericName=SIP phone\n" +
		"Comment=Call tel:, sip: and callto: links with the softphone\n" +
		"Exec=\"" + binaryPath + "\" dial %u\n" +
		"Terminal=false\n" +
		"NoDisplay=false\n" +
		"Categories=Network;Telephony;\n" +
		"MimeType=x-scheme-handler/tel;x-scheme-handler/sip;x-scheme-handler/callto;\n"
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, []byte(entry), 0o644); err != nil {
		return "", fmt.Errorf("desktop entry: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return "", fmt.Errorf("desktop entry: %w", err)
	}
	return path, nil
}

// SetAutostart writes (on) or removes (off) ~/.config/autostart/softphone.desktop
// (XDG autostart spec), which starts the phone without opening a page.
func SetAutostart(home, binaryPath string, on bool) error {
	path := filepath.Join(home, ".config", "autostart", "softphone.desktop")
	if !on {
		if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("autostart entry: %w", err)
		}
		return nil
	}
	if binaryPath == "" || strings.ContainsAny(binaryPath, "\n\r\"`$\\") {
		return fmt.Errorf("%w: %q", ErrBadDesktopEntry, binaryPath)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("autostart entry: %w", err)
	}
	entry := "[Desktop Entry]\nType=Application\nName=Softphone\nComment=SIP phone\n" +
		"Exec=\"" + binaryPath + "\" --no-browser\nTerminal=false\nX-GNOME-Autostart-enabled=true\n"
	if err := os.WriteFile(path, []byte(entry), 0o644); err != nil {
		return fmt.Errorf("autostart entry: %w", err)
	}
	return nil
}
