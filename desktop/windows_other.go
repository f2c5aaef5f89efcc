//go:build !windows

package desktop

// The registry exists only on Windows; a Target naming "windows" elsewhere
// is refused.
func installWindows(Target) ([]string, error) { return nil, ErrUnsupported }

func loginWindows(Target, bool) (string, error) { return "", ErrUnsupported }

func uninstallWindows(Target) ([]string, error) { return nil, ErrUnsupported }

func checkWindows(t Target) Status {
	return Status{OS: t.OS, Links: Item{State: StateNone}, Login: Item{State: StateNone}}
}
