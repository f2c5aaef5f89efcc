package web

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/softphone/softphone/desktop"
	"github.com/softphone/softphone/views"
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

// desktopTarget is this phone on this user's desktop (package desktop).
func (s *Server) desktopTarget() desktop.Target {
	return desktop.Target{UserHome: s.cfg.UserHome, Binary: s.binary(), PhoneHome: s.cfg.Home}
}

// desktopView is what the Settings page says of the integrations in place
// on this computer (issue 17).
func (s *Server) desktopView() views.DesktopView {
	st := desktop.Check(s.desktopTarget())
	return views.DesktopView{OS: st.OS, Links: views.DesktopItem(st.Links), Login: views.DesktopItem(st.Login)}
}
