package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/softphone/softphone/store"
)

// command runs a subcommand: version, secret, install-desktop, uninstall-desktop, dial.
func command(ctx context.Context, o options, stdin *os.File, stdout io.Writer) error {
	switch o.args[0] {
	case "version":
		fmt.Fprintf(stdout, "%s %s (%s)\n", product, version, installMethod)
		return nil
	case "secret":
		return secretCommand(o, stdin, stdout)
	case "install-desktop":
		return installDesktop(o, stdout)
	case "uninstall-desktop":
		return uninstallDesktop(o, stdout)
	case "dial":
		return dialCommand(o, stdout)
	}
	return fmt.Errorf("unknown command %q: see softphone --help", o.args[0])
}

// validSecretName accepts the names of the README: api-token, webhook-header,
// webhook-signing, account:<id>, recogniser:<name>.
func validSecretName(n string) bool {
	switch n {
	case "api-token", "webhook-header", "webhook-signing":
		return true
	}
	for _, p := range []string{"account:", "recogniser:"} {
		if strings.HasPrefix(n, p) && len(n) > len(p) {
			return true
		}
	}
	return false
}

func secretCommand(o options, stdin *os.File, stdout io.Writer) error {
	if len(o.args) != 3 || (o.args[1] != "set" && o.args[1] != "delete") {
		return errors.New("usage: softphone secret set|delete NAME")
	}
	name := o.args[2]
	if !validSecretName(name) {
		return fmt.Errorf("unknown secret name %q: use api-token, webhook-header, webhook-signing, account:<account id> or recogniser:<name>", name)
	}
	if err := os.MkdirAll(o.home, 0o700); err != nil {
		return err
	}
	secrets := store.OpenSecrets(o.home)
	if o.args[1] == "delete" {
		if err := secrets.Delete(name); err != nil && !errors.Is(err, store.ErrNoSecret) {
			return fmt.Errorf("delete secret %s: %w", name, err)
		}
		fmt.Fprintf(stdout, "secret %s deleted\n", name)
		return nil
	}
	value, err := readSecret(stdin, stdout)
	if err != nil {
		return err
	}
	if value == "" {
		return errors.New("empty secret: nothing saved")
	}
	if err := secrets.Set(name, value); err != nil {
		return fmt.Errorf("save secret %s: %w", name, err)
	}
	where := "the keyring"
	if secrets.Fallback() {
		where = "secrets.json (no keyring available)"
	}
	fmt.Fprintf(stdout, "secret %s saved in %s\n", name, where)
	return nil
}

// readSecret reads one line from stdin, without echo when it is a terminal.
func readSecret(stdin *os.File, stdout io.Writer) (string, error) {
	if term.IsTerminal(int(stdin.Fd())) {
		fmt.Fprint(stdout, "Value (not shown): ")
		b, err := term.ReadPassword(int(stdin.Fd()))
		fmt.Fprintln(stdout)
		return strings.TrimSpace(string(b)), err
	}
	b, err := io.ReadAll(io.LimitReader(stdin, 64<<10))
	if err != nil {
		return "", err
	}
	return strings.TrimRight(string(b), "\r\n"), nil
}
