package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/softphone/softphone/internal/testpeer"
)

func TestSecretSetAndDeleteInTheKeyring(t *testing.T) {
	env := testpeer.KeyringEnv(t)
	home := t.TempDir()
	out, err := runCmd(t, "tok-123\n", env, "--home", home, "secret", "set", "api-token")
	if err != nil || !strings.Contains(out, "saved in the keyring") {
		t.Fatalf("set: %v %s", err, out)
	}
	if _, err := os.Stat(filepath.Join(home, "secrets.json")); err == nil {
		t.Fatal("secrets.json written although a keyring is there")
	}
	out, err = runCmd(t, "", env, "--home", home, "secret", "delete", "api-token")
	if err != nil || !strings.Contains(out, "deleted") {
		t.Fatalf("delete: %v %s", err, out)
	}
}

func TestSecretFallsBackToPrivateFile(t *testing.T) {
	home := t.TempDir()
	out, err := runCmd(t, "hook-value\n", noKeyring, "--home", home, "secret", "set", "webhook-header")
	if err != nil || !strings.Contains(out, "secrets.json") {
		t.Fatalf("set: %v %s", err, out)
	}
	fi, err := os.Stat(filepath.Join(home, "secrets.json"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("secrets.json mode %v", fi.Mode().Perm())
	}
}

func TestSecretCommandRefusesBadInput(t *testing.T) {
	home := t.TempDir()
	for _, args := range [][]string{
		{"secret", "set", "password"},
		{"secret", "set"},
		{"secret", "show", "api-token"},
		{"secret", "set", "account:"},
	} {
		out, err := runCmd(t, "x\n", noKeyring, append([]string{"--home", home}, args...)...)
		if err == nil {
			t.Errorf("%v accepted: %s", args, out)
		}
	}
	if out, err := runCmd(t, "", noKeyring, "--home", home, "secret", "set", "api-token"); err == nil {
		t.Errorf("empty secret accepted: %s", out)
	}
}

// TestPlantedSecretsNeverLeak plants every kind of secret, runs the phone
// with the API on and debug logs, reads GET /settings and /accounts, and
// greps settings.json, the database files, the logs and the answers.
func TestPlantedSecretsNeverLeak(t *testing.T) {
	env := testpeer.KeyringEnv(t)
	home := t.TempDir()
	apiPort := testpeer.FreeTCPPort(t)
	accountID := "5f0c8a9e-8a44-4d6b-9a57-0c1f3b7d2e11"
	writeSettings(t, home, map[string]any{
		"api":      map[string]any{"enabled": true, "port": apiPort},
		"webhooks": map[string]any{"enabled": true, "url": "http://127.0.0.1:9/hook", "header_name": "Authorization"},
		"accounts": []map[string]any{{"id": accountID, "name": "Office", "username": "alice", "domain": "127.0.0.1",
			"port": 9, "transport": "udp", "expiry_s": 300, "enabled": true}},
	})
	secrets := map[string]string{
		"api-token":            "planted-api-token-1f3a",
		"webhook-header":       "planted-hook-value-77c1",
		"webhook-signing":      "planted-signing-9d2e",
		"account:" + accountID: "planted-sip-password-4b8c",
		"recogniser:http":      "planted-recogniser-key-0a6f",
	}
	for name, v := range secrets {
		if out, err := runCmd(t, v+"\n", env, "--home", home, "secret", "set", name); err != nil {
			t.Fatalf("set %s: %v %s", name, err, out)
		}
	}
	p := startPhone(t, home, env, "--log-level", "debug")
	base := "http://127.0.0.1:" + strconv.Itoa(apiPort)
	var answers bytes.Buffer
	for _, path := range []string{"/settings", "/accounts", "/"} {
		body := apiGet(t, base+path, "Bearer "+secrets["api-token"])
		answers.WriteString(body)
	}
	p.stop(t)
	var haystack bytes.Buffer
	haystack.WriteString(p.Output())
	haystack.Write(answers.Bytes())
	files, _ := filepath.Glob(filepath.Join(home, "*"))
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil {
			haystack.Write(b)
		}
	}
	for name, v := range secrets {
		if bytes.Contains(haystack.Bytes(), []byte(v)) {
			t.Errorf("secret %s found in settings, database, logs or answers", name)
		}
	}
	if !strings.Contains(answers.String(), `"token_saved":true`) {
		t.Errorf("GET /settings does not say the token is saved: %s", answers.String())
	}
}
