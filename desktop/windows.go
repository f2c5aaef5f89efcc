//go:build windows

package desktop

import (
	"errors"
	"fmt"
	"strings"

	"golang.org/x/sys/windows/registry"
)

// Registry paths under HKEY_CURRENT_USER (no administrator rights needed).
// A URL scheme is a key under Software\Classes with a "URL Protocol" value
// and shell\open\command (Microsoft, "Registering an Application to a URI
// Scheme"); Capabilities and RegisteredApplications put the phone in the
// Default apps settings so the user can choose it there.
const (
	winClasses  = `Software\Classes`
	winProgID   = "Softphone.Link"
	winCapsPath = `Software\Softphone\Capabilities`
	winRegApps  = `Software\RegisteredApplications`
	winRun      = `Software\Microsoft\Windows\CurrentVersion\Run`
	winRunName  = "Softphone"
	winMarker   = "SoftphoneHome" // on our scheme keys: which phone wrote them
)

// winArg quotes one argument for CommandLineToArgvW: always in quotes,
// trailing backslashes doubled so the closing quote stays a quote. Paths
// cannot hold a double quote on Windows; one is refused.
func winArg(s string) (string, error) {
	if s == "" || strings.ContainsAny(s, "\"\n\r\x00") {
		return "", fmt.Errorf("%w: %q", ErrBadPath, s)
	}
	n := len(s) - len(strings.TrimRight(s, `\`))
	return `"` + s + strings.Repeat(`\`, n) + `"`, nil
}

// winCommand is binary, --home HOME, then rest (already quoted).
func winCommand(t Target, rest ...string) (string, error) {
	var parts []string
	for _, a := range append([]string{t.Binary}, homeArgs(t)...) {
		q, err := winArg(a)
		if err != nil {
			return "", err
		}
		parts = append(parts, q)
	}
	return strings.Join(append(parts, rest...), " "), nil
}

// setKey creates path under HKCU and sets its string values ("" is the
// default value).
func setKey(path string, values map[string]string) error {
	k, _, err := registry.CreateKey(registry.CURRENT_USER, path, registry.SET_VALUE)
	if err != nil {
		return fmt.Errorf("desktop: HKCU\\%s: %w", path, err)
	}
	defer k.Close()
	for name, v := range values {
		if err := k.SetStringValue(name, v); err != nil {
			return fmt.Errorf("desktop: HKCU\\%s %s: %w", path, name, err)
		}
	}
	return nil
}

func getValue(path, name string) (string, bool) {
	k, err := registry.OpenKey(registry.CURRENT_USER, path, registry.QUERY_VALUE)
	if err != nil {
		return "", false
	}
	defer k.Close()
	v, _, err := k.GetStringValue(name)
	return v, err == nil
}

// deleteTree removes path under HKCU with its subkeys (DeleteKey takes
// only keys without subkeys).
func deleteTree(path string) error {
	k, err := registry.OpenKey(registry.CURRENT_USER, path, registry.ENUMERATE_SUB_KEYS)
	if errors.Is(err, registry.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("desktop: HKCU\\%s: %w", path, err)
	}
	subs, err := k.ReadSubKeyNames(-1)
	k.Close()
	if err != nil {
		return fmt.Errorf("desktop: HKCU\\%s: %w", path, err)
	}
	for _, s := range subs {
		if err := deleteTree(path + `\` + s); err != nil {
			return err
		}
	}
	if err := registry.DeleteKey(registry.CURRENT_USER, path); err != nil && !errors.Is(err, registry.ErrNotExist) {
		return fmt.Errorf("desktop: HKCU\\%s: %w", path, err)
	}
	return nil
}

func installWindows(t Target) ([]string, error) {
	cmd, err := winCommand(t, "dial", `"%1"`)
	if err != nil {
		return nil, err
	}
	icon, _ := winArg(t.Binary)
	var wrote []string
	for _, s := range Schemes {
		key := winClasses + `\` + s
		if err := setKey(key, map[string]string{"": "URL:" + s + " link", "URL Protocol": "", winMarker: t.PhoneHome}); err != nil {
			return wrote, err
		}
		if err := setKey(key+`\DefaultIcon`, map[string]string{"": icon + ",0"}); err != nil {
			return wrote, err
		}
		if err := setKey(key+`\shell\open\command`, map[string]string{"": cmd}); err != nil {
			return wrote, err
		}
		wrote = append(wrote, `HKCU\`+key)
	}
	if err := setKey(winClasses+`\`+winProgID+`\shell\open\command`, map[string]string{"": cmd}); err != nil {
		return wrote, err
	}
	assoc := map[string]string{}
	for _, s := range Schemes {
		assoc[s] = winProgID
	}
	if err := setKey(winCapsPath, map[string]string{"ApplicationName": "Softphone",
		"ApplicationDescription": "SIP phone: calls tel:, sip: and callto: links"}); err != nil {
		return wrote, err
	}
	if err := setKey(winCapsPath+`\URLAssociations`, assoc); err != nil {
		return wrote, err
	}
	if err := setKey(winRegApps, map[string]string{"Softphone": winCapsPath}); err != nil {
		return wrote, err
	}
	return append(wrote, `HKCU\`+winClasses+`\`+winProgID, `HKCU\`+winCapsPath), nil
}

func loginWindows(t Target, on bool) (string, error) {
	where := `HKCU\` + winRun + `\` + winRunName
	if !on {
		k, err := registry.OpenKey(registry.CURRENT_USER, winRun, registry.SET_VALUE)
		if err != nil {
			return "", nil // no Run key: nothing to remove
		}
		defer k.Close()
		if err := k.DeleteValue(winRunName); err != nil {
			if errors.Is(err, registry.ErrNotExist) {
				return "", nil
			}
			return "", fmt.Errorf("desktop: %s: %w", where, err)
		}
		return where, nil
	}
	cmd, err := winCommand(t, "--no-browser")
	if err != nil {
		return "", err
	}
	return where, setKey(winRun, map[string]string{winRunName: cmd})
}

// ours says whether a scheme key was written by this phone: its marker
// names our home, or its command runs our binary with our home.
func oursWindows(t Target, scheme string) bool {
	want, _ := winCommand(t, "dial", `"%1"`)
	if cmd, ok := getValue(winClasses+`\`+scheme+`\shell\open\command`, ""); ok && cmd == want {
		return true
	}
	m, ok := getValue(winClasses+`\`+scheme, winMarker)
	return ok && m == t.PhoneHome
}

func uninstallWindows(t Target) ([]string, error) {
	var removed []string
	for _, s := range Schemes {
		if !oursWindows(t, s) {
			continue // another program's handler stays
		}
		if err := deleteTree(winClasses + `\` + s); err != nil {
			return removed, err
		}
		removed = append(removed, `HKCU\`+winClasses+`\`+s)
	}
	for _, p := range []string{winClasses + `\` + winProgID, `Software\Softphone`} {
		if keyExists(p) {
			if err := deleteTree(p); err != nil {
				return removed, err
			}
			removed = append(removed, `HKCU\`+p)
		}
	}
	if k, err := registry.OpenKey(registry.CURRENT_USER, winRegApps, registry.SET_VALUE); err == nil {
		_ = k.DeleteValue("Softphone")
		k.Close()
	}
	return removed, nil
}

func keyExists(path string) bool {
	k, err := registry.OpenKey(registry.CURRENT_USER, path, registry.QUERY_VALUE)
	if err != nil {
		return false
	}
	k.Close()
	return true
}

func checkWindows(t Target) Status {
	st := Status{OS: t.OS, Links: Item{State: StateNone}, Login: Item{State: StateNone}}
	want, _ := winCommand(t, "dial", `"%1"`)
	ours := 0
	for _, s := range Schemes {
		cmd, ok := getValue(winClasses+`\`+s+`\shell\open\command`, "")
		switch {
		case ok && cmd == want:
			ours++
		case ok:
			st.Links = Item{State: StateOther, Where: `HKCU\` + winClasses + `\` + s + ": " + cmd}
		}
	}
	if ours == len(Schemes) {
		st.Links = Item{State: StateOurs, Where: `HKCU\` + winClasses + `\{tel,sip,callto}`}
	}
	run, _ := winCommand(t, "--no-browser")
	if v, ok := getValue(winRun, winRunName); ok {
		st.Login = Item{State: StateOther, Where: `HKCU\` + winRun + `\` + winRunName + ": " + v}
		if v == run {
			st.Login = Item{State: StateOurs, Where: `HKCU\` + winRun + `\` + winRunName}
		}
	}
	return st
}
