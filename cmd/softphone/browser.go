package main

import (
	"log/slog"
	"os"
	"os/exec"
	"runtime"
)

// openBrowser opens url in the default browser, when there is a display to
// show it on. Failure is only logged: the printed line still has the link.
func openBrowser(url string, log *slog.Logger) {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", url)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", url)
	default:
		if os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
			return
		}
		cmd = exec.Command("xdg-open", url)
	}
	if err := cmd.Start(); err != nil {
		log.Warn("could not open the browser", "err", err)
		return
	}
	go func() { _ = cmd.Wait() }()
}
