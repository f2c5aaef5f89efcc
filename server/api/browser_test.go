package api

import (
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/softphone/softphone/internal/testpeer"
	"github.com/softphone/softphone/store"
)

// clickToCallPage is a page of another origin with a call button, as a CRM
// would embed it.
const clickToCallPage = `<!DOCTYPE html><html><body>
<button id="call">Call +4930123</button><span id="result"></span>
<script>
document.getElementById('call').addEventListener('click', async () => {
  const res = await fetch(API + '/calls', {method: 'POST', headers: {'Content-Type': 'application/json'},
    body: JSON.stringify({number: '+4930123'})});
  const body = await res.json();
  document.getElementById('result').textContent = body.id || ('error ' + res.status + ' ' + body.error);
});
</script></body></html>`

// TestBrowser runs e2e/browser.mjs in headless Chromium: click-to-call from a
// page of another origin the person approved (server/web/e2e/origins.mjs
// walks the question itself), and the recording page (transcript, player, a
// click on a line seeks).
func TestBrowser(t *testing.T) {
	testpeer.Require(t, "node", "chromium")
	_, file, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(file), "e2e", "browser.mjs")
	e := newEnv(t)
	s := e.seed()

	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	page := strings.Replace(clickToCallPage, "<script>", "<script>const API = '"+e.base+"';", 1)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte(page))
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	// "localhost" makes it another origin than the API's 127.0.0.1.
	pageURL := "http://localhost:" + itoa(ln.Addr().(*net.TCPAddr).Port) + "/"
	e.update(func(s *store.Settings) { s.API.AllowedOrigins = []string{strings.TrimSuffix(pageURL, "/")} })
	e.waitSettings(func(s *store.Settings) bool { return len(s.API.AllowedOrigins) == 1 })

	cmd := exec.Command("node", script, pageURL, e.base+"/ui/recordings/"+s.recording.ID)
	out, err := cmd.CombinedOutput()
	t.Logf("%s", out)
	if err != nil {
		t.Fatalf("browser checks failed: %v", err)
	}
	cmds := e.phone.Commands()
	if len(cmds) != 1 || cmds[0] != "dial +4930123 " {
		t.Fatalf("phone commands %v", cmds)
	}
}
