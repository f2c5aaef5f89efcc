package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// options are what the command line says.
type options struct {
	home      string
	noBrowser bool
	logLevel  string
	args      []string // subcommand and its arguments
}

const usage = `softphone: a desktop SIP phone in your browser, with a local API and webhooks.

Usage:
  softphone [flags]                 run the phone
  softphone version                 print the version and the install method
  softphone secret set NAME         read a secret from standard input into the keyring
  softphone secret delete NAME      remove a secret from the keyring
  softphone install-desktop         register the phone for tel:, sip: and callto: links
                                    (XDG desktop entry; Windows: HKCU registry; macOS: ~/Applications/Softphone.app)
  softphone uninstall-desktop       remove the link handler and the start at login
  softphone dial URI                dial URI at once on the running phone (what the links run)

Secret names: api-token, webhook-header, webhook-signing, account:<account id>, recogniser:<name>

Flags:
`

func parseFlags(args []string, stderr io.Writer) (options, error) {
	var o options
	fs := flag.NewFlagSet("softphone", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.home, "home", os.Getenv("SOFTPHONE_HOME"), "folder for settings.json, softphone.db and recordings/ (env SOFTPHONE_HOME; default: the OS config folder + /softphone)")
	fs.BoolVar(&o.noBrowser, "no-browser", false, "do not open the phone page in the browser")
	fs.StringVar(&o.logLevel, "log-level", "", "debug, info, warn or error (default: settings diagnostics.log_level)")
	fs.Usage = func() {
		fmt.Fprint(stderr, usage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	o.args = fs.Args()
	if o.home == "" {
		dir, err := os.UserConfigDir()
		if err != nil {
			return o, fmt.Errorf("no home folder: give --home: %w", err)
		}
		o.home = filepath.Join(dir, "softphone")
	}
	abs, err := filepath.Abs(o.home)
	if err != nil {
		return o, fmt.Errorf("--home %s: %w", o.home, err)
	}
	o.home = abs
	switch o.logLevel {
	case "", "debug", "info", "warn", "error":
	default:
		return o, errors.New("--log-level: must be debug, info, warn or error")
	}
	return o, nil
}
