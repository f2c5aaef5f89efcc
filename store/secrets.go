package store

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/zalando/go-keyring"
)

// keyringTimeout bounds every keyring call: go-keyring has no timeout, and a
// locked or hung Secret Service would otherwise block the caller for ever.
const keyringTimeout = 3 * time.Second

// SecretsFile is the fallback file in the home folder used when the keyring
// is unavailable.
const SecretsFile = "secrets.json"

// Secrets keeps secrets (SIP passwords, the API token, webhook header value
// and signing secret, recogniser keys) in the OS keyring, under a service
// name unique to the home folder so two phones on one computer do not share
// them. When the keyring is unavailable (any error but "not found", or no
// answer within 3 s) it falls back, for good, to secrets.json (mode 0600) in
// the home folder, and Fallback reports true. Values are never logged, and
// errors never carry them. Safe for concurrent use.
type Secrets struct {
	service string
	file    string

	mu       sync.Mutex // guards fallback and the file
	fallback bool
	changes  atomic.Uint64 // Set and Delete calls done (Changes)
}

// probeName is looked up once at start to learn whether the keyring answers.
const probeName = "keyring-probe"

// OpenSecrets opens the secrets of the phone whose home folder is home. It
// asks the keyring once (at most 3 s) whether it works.
func OpenSecrets(home string) *Secrets {
	abs, err := filepath.Abs(home)
	if err != nil {
		abs = home
	}
	sum := sha256.Sum256([]byte(abs))
	s := &Secrets{
		service: "softphone:" + hex.EncodeToString(sum[:])[:12],
		file:    filepath.Join(abs, SecretsFile),
	}
	if _, err := s.ring(func() (string, error) { return keyring.Get(s.service, probeName) }); err != nil && !errors.Is(err, keyring.ErrNotFound) {
		s.useFallback()
	}
	return s
}

// Service is the keyring service name the secrets are kept under.
func (s *Secrets) Service() string { return s.service }

// Fallback reports whether secrets are kept in secrets.json because the
// keyring is unavailable; the caller warns the user once.
func (s *Secrets) Fallback() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.fallback
}

// Get returns a secret; ErrNoSecret when it is not set. A secret saved in the
// fallback file while the keyring was away is still found.
func (s *Secrets) Get(name string) (string, error) {
	if !s.Fallback() {
		v, err := s.ring(func() (string, error) { return keyring.Get(s.service, name) })
		if err == nil {
			return v, nil
		}
		if !errors.Is(err, keyring.ErrNotFound) {
			s.useFallback()
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.readFile()
	if err != nil {
		return "", err
	}
	v, ok := m[name]
	if !ok {
		return "", fmt.Errorf("secret %q: %w", name, ErrNoSecret)
	}
	return v, nil
}

// Changes counts the Set and Delete calls done through s (this process's
// changes), each counted once it is done. A reader that keeps a secret it
// read (the webhook sender, per delivery) compares it with the count at its
// read to learn, without asking the keyring, that its copy may be old.
func (s *Secrets) Changes() uint64 { return s.changes.Load() }

// Set saves a secret. An empty value deletes it.
func (s *Secrets) Set(name, value string) error {
	defer s.changes.Add(1) // after the write: a reader that sees the count reads the new value
	if name == "" {
		return fmt.Errorf("secret: %w: empty name", ErrInvalid)
	}
	if value == "" {
		return s.Delete(name)
	}
	if !s.Fallback() {
		_, err := s.ring(func() (string, error) { return "", keyring.Set(s.service, name, value) })
		if err == nil {
			return s.editFile(func(m map[string]string) bool { return deleteKey(m, name) })
		}
		s.useFallback()
	}
	return s.editFile(func(m map[string]string) bool {
		m[name] = value
		return true
	})
}

// Delete removes a secret; removing one that is not set is not an error.
func (s *Secrets) Delete(name string) error {
	defer s.changes.Add(1) // after the write, as Set
	if !s.Fallback() {
		_, err := s.ring(func() (string, error) { return "", keyring.Delete(s.service, name) })
		if err != nil && !errors.Is(err, keyring.ErrNotFound) {
			s.useFallback()
		}
	}
	return s.editFile(func(m map[string]string) bool { return deleteKey(m, name) })
}

// Has reports whether a secret is set.
func (s *Secrets) Has(name string) bool {
	_, err := s.Get(name)
	return err == nil
}

func (s *Secrets) useFallback() {
	s.mu.Lock()
	s.fallback = true
	s.mu.Unlock()
}

// errKeyringTimeout: the keyring did not answer in time.
var errKeyringTimeout = errors.New("keyring did not answer within 3 s")

// ring runs one keyring call with the timeout. A call that times out is left
// to finish in the background; its result is dropped.
func (s *Secrets) ring(call func() (string, error)) (string, error) {
	type result struct {
		v   string
		err error
	}
	ch := make(chan result, 1)
	go func() {
		v, err := call()
		ch <- result{v, err}
	}()
	select {
	case r := <-ch:
		return r.v, r.err
	case <-time.After(keyringTimeout):
		return "", errKeyringTimeout
	}
}

// maxSecretsFile bounds secrets.json: passwords, tokens and keys of a
// phone's accounts and services take a few KiB.
const maxSecretsFile = 1 << 20

// readFile reads the fallback file; a missing file is empty. Caller holds mu.
// One that is not a regular file, or above maxSecretsFile, is refused by
// what it is, as settings.json is (readSettingsFile): a FIFO blocked every
// reading of a secret for ever, holding mu, and a huge file was read whole
// at each.
func (s *Secrets) readFile() (map[string]string, error) {
	m := map[string]string{}
	st, err := os.Stat(s.file)
	if errors.Is(err, fs.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", s.file, err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("read %s: not a regular file (%s)", s.file, st.Mode().Type())
	}
	if st.Size() > maxSecretsFile {
		return nil, fmt.Errorf("read %s: the file is %d bytes; a secrets file is at most %d bytes", s.file, st.Size(), maxSecretsFile)
	}
	f, err := os.Open(s.file)
	if errors.Is(err, fs.ErrNotExist) {
		return m, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", s.file, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxSecretsFile+1)) // it may have grown since the Stat
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", s.file, err)
	}
	if len(b) > maxSecretsFile {
		return nil, fmt.Errorf("read %s: the file is more than %d bytes; a secrets file is at most that", s.file, maxSecretsFile)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		// Say where, never what: the file holds secrets.
		return nil, fmt.Errorf("read %s: not a JSON object of strings", s.file)
	}
	return m, nil
}

// editFile changes the fallback file atomically (0600) when edit reports a
// change. A missing file that would stay empty is not created.
func (s *Secrets) editFile(edit func(map[string]string) bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	m, err := s.readFile()
	if err != nil {
		return err
	}
	if !edit(m) {
		return nil
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return fmt.Errorf("write %s: %w", s.file, err)
	}
	if err := writeFileAtomic(s.file, b); err != nil {
		return fmt.Errorf("write %s: %w", s.file, err)
	}
	return nil
}

func deleteKey(m map[string]string, k string) bool {
	_, ok := m[k]
	delete(m, k)
	return ok
}
