package store

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/google/uuid"
)

// LoadSettings reads settings.json. A missing file is created with the
// defaults (mode 0600) and the defaults are returned. Keys left out of the
// file keep their defaults. A file that does not parse, has a key this
// program does not know, a value of the wrong type or a bad value gives an
// error that names the file and the key (ErrSettings), and the file is not
// touched. The *_saved fields of the file are ignored. Accounts without an id
// get a UUID, and only then is the file rewritten (so the id sticks: the
// account's password is kept under it).
func LoadSettings(path string) (Settings, error) {
	b, err := readSettingsFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		s := DefaultSettings()
		if err := SaveSettings(path, s); err != nil {
			return Settings{}, err
		}
		return s, nil
	}
	if err != nil {
		return Settings{}, fmt.Errorf("%w: %s: %w", ErrSettings, path, err)
	}
	s, err := ParseSettings(b)
	if err != nil {
		return Settings{}, fmt.Errorf("%w: %s: %w", ErrSettings, path, err)
	}
	added := false
	for i := range s.Accounts {
		if s.Accounts[i].ID == "" {
			s.Accounts[i].ID = uuid.NewString()
			added = true
		}
	}
	if err := s.Validate(); err != nil {
		return Settings{}, fmt.Errorf("%w: %s: %w", ErrSettings, path, err)
	}
	if added {
		if err := SaveSettings(path, s); err != nil {
			return Settings{}, err
		}
	}
	return s, nil
}

// MaxSettingsFile is the largest settings file read, 4 MiB: thousands of
// accounts. A bigger file was not written by the phone (a disk error, a
// program writing to the wrong file); reading it whole would take memory
// in proportion (and the JSON decoder several times that) before finding
// out, so it is refused by its size, like any other bad file.
const MaxSettingsFile = 4 << 20

// readSettingsFile reads the settings file, refusing one above
// MaxSettingsFile and one that is not a regular file (a FIFO would block
// the start for ever, a device never end).
func readSettingsFile(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("not a regular file (%s)", st.Mode().Type())
	}
	if st.Size() > MaxSettingsFile {
		return nil, fmt.Errorf("the file is %d bytes; a settings file is at most %d bytes", st.Size(), MaxSettingsFile)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxSettingsFile+1)) // it may have grown since the Stat
	if err != nil {
		return nil, err
	}
	if len(b) > MaxSettingsFile {
		return nil, fmt.Errorf("the file is more than %d bytes; a settings file is at most that", MaxSettingsFile)
	}
	return b, nil
}

// ParseSettings decodes the contents of a settings file over the defaults,
// strictly: unknown keys and wrong types are errors naming the key. It does
// not fill account ids and does not Validate.
func ParseSettings(b []byte) (Settings, error) {
	// A byte order mark: Windows editors and PowerShell's UTF8 encoding put
	// one before the text. RFC 8259 8.1 lets a parser ignore it; before, the
	// phone refused such a file ("invalid character 'ï'") and did not start.
	b = bytes.TrimPrefix(b, []byte("\xef\xbb\xbf"))
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var raw any
	if err := dec.Decode(&raw); err != nil {
		return Settings{}, syntaxError(b, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return Settings{}, fmt.Errorf("%s: unexpected data after the settings object", position(b, dec.InputOffset()))
	}
	if _, ok := raw.(map[string]any); !ok {
		return Settings{}, fmt.Errorf("the file must hold a JSON object, got %s", jsonKind(raw))
	}
	if err := checkShape("", raw, settingsType); err != nil {
		return Settings{}, err
	}
	s := DefaultSettings()
	// The shape check above accepted the value, so this decode cannot fail on
	// type or unknown keys; an error here is still reported, never ignored.
	strict := json.NewDecoder(bytes.NewReader(b))
	strict.DisallowUnknownFields()
	if err := strict.Decode(&s); err != nil {
		return Settings{}, err
	}
	s.StripSaved()
	s.normalize()
	return s, nil
}

// normalize fills what may be left out: an account's transport (udp) and
// expiry (3600 s), and turns null lists into empty ones, so GET /settings
// shows [] rather than null.
func (s *Settings) normalize() {
	for i := range s.Accounts {
		a := &s.Accounts[i]
		if a.Transport == "" {
			a.Transport = DefaultAccountTransport
		}
		if a.ExpiryS == 0 {
			a.ExpiryS = DefaultAccountExpiryS
		}
		normalizeSecurity(a)
	}
	for _, p := range []*[]string{&s.API.Disabled, &s.API.AllowedOrigins, &s.Webhooks.Silenced, &s.Audio.Codecs} {
		if *p == nil {
			*p = []string{}
		}
	}
	if s.Accounts == nil {
		s.Accounts = []Account{}
	}
}

// Normalize fills what a request may leave out, the same way as a file
// (see normalize): the API fills these defaults before it validates.
func (s *Settings) Normalize() { s.normalize() }

// SaveSettings fills left-out account fields (see normalize), validates s and writes it to path atomically (a temporary
// file in the same folder, fsync, rename, fsync of the folder), mode 0600.
// The *_saved fields are never written.
func SaveSettings(path string, s Settings) error {
	s = s.Clone()
	s.normalize()
	if err := s.Validate(); err != nil {
		return fmt.Errorf("%w: %s: %w", ErrSettings, path, err)
	}
	s.StripSaved()
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return fmt.Errorf("save settings %s: %w", path, err)
	}
	if err := writeFileAtomic(path, append(b, '\n')); err != nil {
		return fmt.Errorf("save settings %s: %w", path, err)
	}
	return nil
}

// writeFileAtomic replaces path with data so that a reader sees the old or
// the new contents, never a part, even after a crash.
func writeFileAtomic(path string, data []byte) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = f.Close()
			_ = os.Remove(tmp)
		}
	}()
	if err = f.Chmod(0o600); err != nil {
		return err
	}
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if err = os.Rename(tmp, path); err != nil {
		return err
	}
	if d, derr := os.Open(dir); derr == nil {
		_ = d.Sync()
		_ = d.Close()
	}
	return nil
}
