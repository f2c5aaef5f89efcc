package main

import (
	"log/slog"
	"os"
	"os/exec"
	"runtime"
	"strings"
)

// openBrowser opens url in the default browser, when there is a display to
// show it on, and reports whether a browser was started. Failure is only
// logged: the printed line still has the link. On Linux $BROWSER (the
// usual variable; its first entry) comes before xdg-open.
func openBrowser(url string, log *slog.Logger) bool {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
			return false
		}
		cmd = exec.Command("xdg-open", url)
		if b, _, _ := strings.Cut(os.Getenv("BROWSER"), ":"); b != "" {
			cmd = exec.Command(b, url)
		}
	}
	if err := cmd.Start(); err != nil {
		log.Warn("could not open the browser", "err", err)
		return false
	}
	go func() { _ = cmd.Wait() }()
	return true
}
