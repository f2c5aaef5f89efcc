package api

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gofiber/fiber/v3"
	"github.com/google/uuid"
	"github.com/softphone/softphone/store"
)

// shown fills the *_saved fields from the keyring: the settings say only
// that a secret is saved, never what it is (rest-api.md "Settings").
func (s *Server) shown(st store.Settings) store.Settings {
	sec := s.cfg.Secrets
	st.API.TokenSaved = sec.Has("api-token")
	st.Webhooks.HeaderValueSaved = sec.Has("webhook-header")
	st.Webhooks.SigningSecretSaved = sec.Has("webhook-signing")
	st.Accounts = append([]store.Account(nil), st.Accounts...)
	for i := range st.Accounts {
		st.Accounts[i].PasswordSaved = sec.Has("account:" + st.Accounts[i].ID)
	}
	if r := st.Transcription.Recogniser; r != "" && r != "none" {
		st.Transcription.KeySaved = sec.Has("recogniser:" + r)
	}
	return st
}

// getSettings: GET /settings, the settings.json shape without secrets.
func (s *Server) getSettings(c fiber.Ctx) error {
	return c.JSON(s.shown(s.cfg.Settings.Get()))
}

// patchSettings: PATCH /settings (token) takes a JSON merge patch (RFC 7396)
// of the GET /settings shape, e.g. {"api":{"disabled":["history"]}}. The
// result is validated and saved as a whole; errors name the key. The *_saved
// fields are ignored. Answers the new settings.
//
// An account the patch leaves out of the accounts list loses its password
// first, as with DELETE /accounts/{id}: when the keyring refuses, nothing
// is changed and the client is told. The password stayed in the keyring
// for good, a secret without its account that no request could name. When
// the settings are then refused, the passwords are put back.
func (s *Server) patchSettings(c fiber.Ctx) error {
	var patch map[string]any
	if err := decode(c, &patch); err != nil {
		return err
	}
	trial := s.cfg.Settings.Get()
	next, err := patched(trial, patch)
	if err != nil {
		return settingsError(err)
	}
	var back []func()
	putBack := func() {
		for _, f := range back {
			f()
		}
	}
	for _, id := range goneAccounts(trial, next) {
		name := "account:" + id
		pw, had := s.cfg.Secrets.Get(name)
		if err := s.cfg.Secrets.Delete(name); err != nil && !errors.Is(err, store.ErrNoSecret) {
			s.log.Warn("settings not changed: the password of an account left out could not be removed", "account", id, "err", err)
			putBack()
			return fail(fiber.StatusInternalServerError, msgPasswordKept)
		}
		if had == nil {
			back = append(back, func() { _ = s.cfg.Secrets.Set(name, pw) })
		}
	}
	var gone []string
	st, err := s.cfg.Settings.Update(func(st *store.Settings) error {
		next, err := patched(*st, patch)
		if err != nil {
			return err
		}
		gone = goneAccounts(*st, next)
		*st = next
		return nil
	})
	if err != nil {
		putBack()
		return settingsError(err)
	}
	for _, id := range gone { // left out by a change made meanwhile: best effort
		if err := s.cfg.Secrets.Delete("account:" + id); err != nil && !errors.Is(err, store.ErrNoSecret) {
			s.log.Warn("the password of an account left out could not be removed", "account", id, "err", err)
		}
	}
	s.cur.Store(&st)
	return c.JSON(s.shown(st))
}

// patched is cur with the merge patch applied, filled and checked.
func patched(cur store.Settings, patch map[string]any) (store.Settings, error) {
	b, err := json.Marshal(cur)
	if err != nil {
		return store.Settings{}, err
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		return store.Settings{}, err
	}
	merged, err := json.Marshal(mergePatch(doc, patch))
	if err != nil {
		return store.Settings{}, err
	}
	// Over the defaults: a key the patch removes (null, RFC 7396) takes
	// its default; then what may be left out is filled (an account's
	// transport, expiry and id), and only then is the result checked.
	next := store.DefaultSettings()
	next.Accounts = nil
	if err := strictUnmarshal(merged, &next); err != nil {
		return store.Settings{}, err
	}
	next.Normalize()
	for i := range next.Accounts {
		if next.Accounts[i].ID == "" { // as in settings.json: generated when missing
			next.Accounts[i].ID = uuid.NewString()
		}
	}
	if err := next.Validate(); err != nil {
		return store.Settings{}, requestError(err, "")
	}
	return next, nil
}

// goneAccounts are the ids of the accounts of before that after lacks.
func goneAccounts(before, after store.Settings) []string {
	var gone []string
	for _, a := range before.Accounts {
		if !slices.ContainsFunc(after.Accounts, func(b store.Account) bool { return b.ID == a.ID }) {
			gone = append(gone, a.ID)
		}
	}
	return gone
}

// mergePatch applies RFC 7396: objects merge, null deletes, the rest replaces.
func mergePatch(doc map[string]any, patch map[string]any) map[string]any {
	for k, pv := range patch {
		if pv == nil {
			delete(doc, k)
			continue
		}
		pm, ok := pv.(map[string]any)
		if !ok {
			doc[k] = pv
			continue
		}
		dm, _ := doc[k].(map[string]any)
		if dm == nil {
			dm = map[string]any{}
		}
		doc[k] = mergePatch(dm, pm)
	}
	return doc
}

var errPatch = errors.New("bad settings patch")

// requestError turns the failed check of settings into one message naming
// the request's own fields: "<field> <what is wrong>" (the key without
// prefix, so an account request hears "transport must be one of udp, tcp,
// tls"), several joined by "; ". The value the request sent is not repeated.
func requestError(err error, prefix string) error {
	var msgs []string
	var walk func(error)
	walk = func(e error) {
		if j, ok := e.(interface{ Unwrap() []error }); ok {
			for _, x := range j.Unwrap() {
				walk(x)
			}
			return
		}
		var fe *store.FieldError
		if errors.As(e, &fe) {
			msg := fe.Msg
			if i := strings.LastIndex(msg, ", got "); i >= 0 {
				msg = msg[:i]
			}
			msgs = append(msgs, strings.TrimPrefix(fe.Key, prefix)+" "+msg)
		}
	}
	walk(err)
	if len(msgs) == 0 {
		return fmt.Errorf("%w: %w", errPatch, err)
	}
	return fail(fiber.StatusBadRequest, strings.Join(msgs, "; "))
}

// settingsError shows a refused change with the message naming the key
// (the "bad settings patch: " prefix is left out). A settings.json its disk
// had no room for says so (it was "internal error": neither the cause nor
// whether the change was kept); the status stays 500, as rest-api.md's
// error table has no row for it.
func settingsError(err error) error {
	var he *httpError
	if errors.As(err, &he) {
		return err
	}
	if store.IsDiskFull(err) {
		return fmt.Errorf("%w (%w)", fail(fiber.StatusInternalServerError, msgSettingsDiskFull), err)
	}
	if errors.Is(err, errPatch) {
		return fail(fiber.StatusBadRequest, strings.TrimPrefix(err.Error(), errPatch.Error()+": "))
	}
	return err
}
