package testpeer

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var (
	keyringOnce sync.Once
	keyringAddr string
	keyringErr  string
)

// WithKeyring points this test process at a private D-Bus session bus with an
// unlocked, throw-away gnome-keyring (Secret Service), started once per test
// binary and killed with it. It sets DBUS_SESSION_BUS_ADDRESS for the test.
func WithKeyring(t *testing.T) {
	t.Helper()
	Require(t, "dbus-daemon", "gnome-keyring-daemon", "dbus-send", "secret-tool")
	keyringOnce.Do(startKeyring)
	if keyringErr != "" {
		t.Fatal(keyringErr)
	}
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", keyringAddr)
}

// KeyringEnv is the environment for a child process (the phone binary) that
// must use the same keyring.
func KeyringEnv(t *testing.T) []string {
	WithKeyring(t)
	return []string{"DBUS_SESSION_BUS_ADDRESS=" + keyringAddr}
}

func startKeyring() {
	dir, err := os.MkdirTemp("", "softphone-keyring-")
	if err != nil {
		keyringErr = err.Error()
		return
	}
	for _, d := range []string{"run", "data"} {
		_ = os.MkdirAll(filepath.Join(dir, d), 0o700)
	}
	env := append(os.Environ(), "XDG_RUNTIME_DIR="+filepath.Join(dir, "run"), "XDG_DATA_HOME="+filepath.Join(dir, "data"))
	bus := exec.Command("dbus-daemon", "--session", "--nofork", "--print-address=1", "--nopidfile")
	bus.Env = env
	bus.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	out, err := bus.StdoutPipe()
	if err != nil {
		keyringErr = err.Error()
		return
	}
	if err := bus.Start(); err != nil {
		keyringErr = "dbus-daemon: " + err.Error()
		return
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		keyringErr = "dbus-daemon gave no address: " + err.Error()
		return
	}
	keyringAddr = strings.TrimSpace(line)
	env = append(env, "DBUS_SESSION_BUS_ADDRESS="+keyringAddr)
	kr := exec.Command("gnome-keyring-daemon", "--foreground", "--unlock", "--components=secrets")
	kr.Env = env
	kr.Stdin = strings.NewReader("harness")
	kr.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := kr.Start(); err != nil {
		keyringErr = "gnome-keyring-daemon: " + err.Error()
		return
	}
	ok := WaitFor(10*time.Second, func() bool {
		q := exec.Command("dbus-send", "--session", "--print-reply", "--dest=org.freedesktop.DBus", "/org/freedesktop/DBus",
			"org.freedesktop.DBus.NameHasOwner", "string:org.freedesktop.secrets")
		q.Env = env
		b, _ := q.Output()
		return strings.Contains(string(b), "boolean true")
	})
	if !ok {
		keyringErr = "gnome-keyring did not appear on the session bus"
		return
	}
	// The name is owned before the login collection exists and is unlocked;
	// a client that comes too early sees "no such collection" and takes the
	// keyring for absent. Wait until a secret can be stored and read back.
	ok = WaitFor(15*time.Second, func() bool {
		st := exec.Command("secret-tool", "store", "--label=ready", "testpeer", "ready")
		st.Env, st.Stdin = env, strings.NewReader("1")
		if st.Run() != nil {
			return false
		}
		lk := exec.Command("secret-tool", "lookup", "testpeer", "ready")
		lk.Env = env
		b, err := lk.Output()
		return err == nil && string(b) == "1"
	})
	if !ok {
		keyringErr = "gnome-keyring's login collection did not become usable"
	}
}
