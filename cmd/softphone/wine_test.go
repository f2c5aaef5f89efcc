package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/softphone/softphone/internal/testpeer"
)

// wine is a Wine prefix in which the Windows build runs (scripts/wine: the
// bcryptprimitives.dll shim Debian's Wine 8.0 lacks).
type wine struct {
	bin, server, prefix string
}

// findWine gives wine64 and wineserver; without them the test skips on a
// developer machine and fails in CI (CI set), where they must be installed.
func findWine(t *testing.T) wine {
	t.Helper()
	var w wine
	for _, c := range []string{"/usr/lib/wine/wine64", "wine64"} {
		if p, err := exec.LookPath(c); err == nil {
			w.bin = p
			break
		}
	}
	for _, c := range []string{"/usr/lib/wine/wineserver64", "/usr/lib/wine/wineserver", "wineserver"} {
		if p, err := exec.LookPath(c); err == nil {
			w.server = p
			break
		}
	}
	_, mingw := exec.LookPath("x86_64-w64-mingw32-gcc")
	if w.bin == "" || w.server == "" || mingw != nil {
		if os.Getenv("CI") == "" {
			t.Skip("wine64 or gcc-mingw-w64-x86-64 not installed (scripts/install-test-deps.sh installs them)")
		}
		t.Fatal("CI: wine64, wineserver and x86_64-w64-mingw32-gcc are required")
	}
	return w
}

func (w wine) env() []string {
	return append(os.Environ(), "WINEPREFIX="+w.prefix, "WINEDEBUG=-all")
}

// run runs a Windows program to its end. Wine now and then fails to start
// a program at all on a loaded machine ("ShellExecuteEx failed: Internal
// error" from its loader, CI run 20, `reg query` of one key of three): that
// start is tried again, up to three times; the program's own failures are not.
func (w wine) run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	for try := 1; ; try++ {
		out, err := w.runOnce(args...)
		if err == nil || try == 3 || !strings.Contains(out, "ShellExecuteEx failed") {
			return out, err
		}
		t.Logf("wine did not start %v (try %d): %s", args, try, out)
	}
}

func (w wine) runOnce(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), wineRunMax)
	defer cancel()
	out, err := w.command(ctx, args...).CombinedOutput()
	if errors.Is(err, exec.ErrWaitDelay) {
		err = nil // it exited with 0; only Wine's processes held the pipe
	}
	return string(out), err
}

// command is wine64 with args in the test's prefix, killed when ctx ends.
// Wine's own processes (services.exe, winedevice.exe, ...) that the first
// program of the persistent wineserver starts inherit its output and live
// until `wineserver -k`: once the program has exited its output is not
// waited for longer than WaitDelay (the test hung 19 minutes on `version`
// in CI).
func (w wine) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, w.bin, args...)
	cmd.Env = w.env()
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// wineRunMax bounds one Windows program of the test (Wine's first start in
// a prefix takes seconds on a loaded machine, never minutes).
const wineRunMax = 3 * time.Minute

// reg runs `wine64 reg query KEY [/v NAME]`: the registry as Windows tools see it.
func (w wine) reg(t *testing.T, key string, value ...string) (string, bool) {
	t.Helper()
	args := []string{"reg", "query", key}
	if len(value) > 0 {
		args = append(args, "/v", value[0])
	}
	out, err := w.run(t, args...)
	return out, err == nil
}

// TestWindowsBuildUnderWine starts the Windows build under Wine: it prints
// its page URL, keeps running and serves the page with its default home in
// %AppData%\softphone; UDP (which Wine refuses Go programs) is an account
// cause, not an exit; the secret goes to the Credential Manager; the start
// at login is the user's Run value; install-desktop and uninstall-desktop
// write and remove the tel:, sip: and callto: keys under HKCU\Software\Classes.
func TestWindowsBuildUnderWine(t *testing.T) {
	w := findWine(t)
	dir := t.TempDir()
	exe := filepath.Join(dir, "softphone.exe")
	build := exec.Command("go", "build", "-o", exe, ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=windows", "GOARCH=amd64")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("windows build: %v\n%s", err, out)
	}
	w.prefix = filepath.Join(dir, "prefix")
	setup := exec.Command("sh", "../../scripts/wine/setup.sh", w.prefix)
	setup.Env = w.env()
	if out, err := setup.CombinedOutput(); err != nil {
		t.Fatalf("wine prefix: %v\n%s", err, out)
	}
	// One wineserver for the whole test (each program would otherwise
	// start its own and wait for it), stopped at the end.
	persist := exec.Command(w.server, "-p")
	persist.Env = w.env()
	_ = persist.Run()
	t.Cleanup(func() {
		k := exec.Command(w.server, "-k")
		k.Env = w.env()
		_ = k.Run()
	})

	users, _ := filepath.Glob(filepath.Join(w.prefix, "drive_c", "users", "*", "AppData", "Roaming"))
	var appData string
	for _, u := range users {
		if !strings.Contains(u, "/Public/") {
			appData = u
		}
	}
	if appData == "" {
		t.Fatalf("no AppData\\Roaming in the prefix: %v", users)
	}
	home := filepath.Join(appData, "softphone")
	if err := os.MkdirAll(home, 0o700); err != nil {
		t.Fatal(err)
	}
	uiPort, apiPort := testpeer.FreeTCPPort(t), testpeer.FreeTCPPort(t)
	acc := "5f1e2d3c-4b5a-4968-8776-655443322110"
	writeSettings(t, home, map[string]any{
		"ui":       map[string]any{"port": uiPort},
		"api":      map[string]any{"enabled": true, "port": apiPort},
		"startup":  map[string]any{"start_at_login": true},
		"accounts": []map[string]any{{"id": acc, "username": "alice", "domain": "127.0.0.1", "transport": "udp", "enabled": true}},
	})

	if out, err := w.run(t, exe, "version"); err != nil || !strings.HasPrefix(out, "softphone ") {
		t.Fatalf("version under wine: %v %q", err, out)
	}
	// The secret goes to the Windows Credential Manager (go-keyring's
	// wincred), not to secrets.json.
	ctx, cancel := context.WithTimeout(context.Background(), wineRunMax)
	defer cancel()
	setSecret := w.command(ctx, exe, "secret", "set", "api-token")
	setSecret.Stdin = strings.NewReader("wine-token\n")
	if out, err := setSecret.CombinedOutput(); (err != nil && !errors.Is(err, exec.ErrWaitDelay)) || !strings.Contains(string(out), "saved in the keyring") {
		t.Errorf("secret under wine: %v %s", err, out)
	}

	// The phone, with no --home: %AppData%\softphone is its home.
	cmd := exec.Command(w.bin, exe, "--no-browser")
	cmd.Env = w.env()
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL, Setpgid: true}
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); pw.Close(); close(done) }()
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); <-done })
	found := make(chan string, 1)
	var log strings.Builder // read only after scanned
	scanned := make(chan struct{})
	go func() {
		defer close(scanned)
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			log.WriteString(sc.Text() + "\n")
			if m := regexp.MustCompile(`Phone page: (http://127\.0\.0\.1:(\d+)/\S*)`).FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
	}()
	var page string
	select {
	case page = <-found:
	case <-done:
		<-scanned
		t.Fatalf("the Windows build exited before printing its page:\n%s", log.String())
	case <-time.After(60 * time.Second):
		t.Fatal("no page line within 60 s")
	}
	if !strings.Contains(page, ":"+strconv.Itoa(uiPort)+"/") {
		t.Errorf("page %s not on ui.port %d", page, uiPort)
	}
	// The one-time link logs in (303 to the page with a cookie); the page
	// itself answers with the phone.
	jar := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }, Timeout: 10 * time.Second}
	res, err := jar.Get(page)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusSeeOther || len(res.Cookies()) == 0 {
		t.Fatalf("login link: %d", res.StatusCode)
	}
	// The SIP stack opens after the page line: its state first.
	var accs []map[string]any
	if !testpeer.WaitFor(20*time.Second, func() bool {
		return testpeer.GetJSON("http://127.0.0.1:"+strconv.Itoa(apiPort)+"/accounts", &accs) == nil && len(accs) == 1 && accs[0]["state"] == "failed"
	}) {
		t.Fatalf("GET /accounts under wine: %v", accs)
	}
	if c, _ := accs[0]["cause"].(string); !strings.HasPrefix(c, "no SIP listener for udp: ") {
		t.Errorf("cause %q", c)
	}
	req, _ := http.NewRequest("GET", "http://127.0.0.1:"+strconv.Itoa(uiPort)+"/", nil)
	req.AddCookie(res.Cookies()[0])
	res, err = jar.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if res.StatusCode != 200 || !strings.Contains(string(body), "SIP over UDP cannot listen on") {
		t.Errorf("page: %d, no notice of the UDP listener:\n%s", res.StatusCode, body)
	}
	if _, err := os.Stat(filepath.Join(home, "softphone.db")); err != nil {
		t.Errorf("no database in %%AppData%%\\softphone: %v", err)
	}
	// startup.start_at_login true: the user's Run value starts this binary.
	run := `HKCU\Software\Microsoft\Windows\CurrentVersion\Run`
	if out, ok := w.reg(t, run, "Softphone"); !ok || !strings.Contains(out, `softphone.exe" "--home" "C:\users\`) || !strings.Contains(out, "--no-browser") {
		t.Errorf("Run value: %v\n%s", ok, out)
	}
	select {
	case <-done:
		<-scanned
		t.Fatalf("the phone exited:\n%s", log.String())
	default:
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	<-done
	<-scanned
	t.Logf("the phone under wine said:\n%s", log.String())

	out, err := w.run(t, exe, "install-desktop")
	if err != nil || !strings.Contains(out, `HKCU\Software\Classes\callto`) {
		t.Fatalf("install-desktop: %v\n%s", err, out)
	}
	for _, s := range []string{"tel", "sip", "callto"} {
		q, ok := w.reg(t, `HKCU\Software\Classes\`+s+`\shell\open\command`)
		if !ok || !strings.Contains(q, `softphone.exe" "--home" "C:\users\`) || !strings.Contains(q, `dial "%1"`) {
			t.Errorf("%s: handler not registered:\n%s", s, q)
		}
		if q, ok := w.reg(t, `HKCU\Software\Classes\`+s, "URL Protocol"); !ok {
			t.Errorf("%s: no URL Protocol value:\n%s", s, q)
		}
	}
	if q, ok := w.reg(t, `HKCU\Software\RegisteredApplications`, "Softphone"); !ok || !strings.Contains(q, `Software\Softphone\Capabilities`) {
		t.Errorf("RegisteredApplications: %s", q)
	}
	out, err = w.run(t, exe, "uninstall-desktop")
	if err != nil || !strings.Contains(out, "removed: "+run+`\Softphone`) {
		t.Fatalf("uninstall-desktop: %v\n%s", err, out)
	}
	for _, key := range []string{`HKCU\Software\Classes\tel`, `HKCU\Software\Classes\sip`, `HKCU\Software\Classes\callto`, `HKCU\Software\Softphone`} {
		if q, ok := w.reg(t, key); ok {
			t.Errorf("%s still there after uninstall-desktop:\n%s", key, q)
		}
	}
	if q, ok := w.reg(t, run, "Softphone"); ok {
		t.Errorf("Run value still there:\n%s", q)
	}
	b, _ := json.Marshal(accs)
	t.Logf("accounts under wine: %s", b)

	t.Run("recogniser ends with a killed phone", func(t *testing.T) { recogniserDiesWithPhone(t, w, dir) })
}

// recogniserDiesWithPhone: a phone killed while pocketsphinx transcribes
// takes the recogniser with it on Windows too (the job object of
// audio/transcribe_sphinx_windows.go). It ran on, minutes of both cores
// for an hour's call. The phone is testdata/sphinxjob (audio.Pocketsphinx
// whose recogniser is itself, noting its process id and waiting); killed
// from outside as Task Manager would, then asked whether that process ended.
func recogniserDiesWithPhone(t *testing.T, w wine, dir string) {
	exe := filepath.Join(dir, "sphinxjob.exe")
	build := exec.Command("go", "build", "-o", exe, "./testdata/sphinxjob")
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=windows", "GOARCH=amd64")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("windows build: %v\n%s", err, out)
	}
	pidFile := filepath.Join(dir, "recogniser.pid")
	cmd := exec.Command(w.bin, exe)
	cmd.Env = append(w.env(), `SPHINXJOB_PID=Z:`+strings.ReplaceAll(pidFile, "/", `\`))
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	// Its output to a file, not a pipe: the recogniser inherits the pipe,
	// and Wait would wait for the recogniser (it ran on for its two
	// minutes, and the check then found it gone).
	logFile, err := os.Create(filepath.Join(dir, "sphinxjob.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	out := func() string { b, _ := os.ReadFile(logFile.Name()); return string(b) }
	var pid string
	if !testpeer.WaitFor(60*time.Second, func() bool {
		b, err := os.ReadFile(pidFile)
		pid = string(b)
		return err == nil && pid != ""
	}) {
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("the recogniser did not start:\n%s", out())
	}
	_ = cmd.Process.Kill() // SIGKILL: Wine's server ends the Windows process, as TerminateProcess does
	<-done
	if res, err := w.run(t, exe, "check", pid); err != nil || !strings.HasPrefix(res, "gone") {
		t.Fatalf("the recogniser (process %s) runs on after the phone was killed: %v %s", pid, err, res)
	}
}
