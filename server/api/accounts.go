package api

import (
	"errors"
	"fmt"
	"slices"

	"github.com/gofiber/fiber/v3"
	"github.com/google/uuid"
	"github.com/softphone/softphone/sipua"
	"github.com/softphone/softphone/store"
)

// accountJSON is rest-api.md "Account": never a password.
type accountJSON struct {
	ID            string `json:"id"`
	Name          string `json:"name"`
	Username      string `json:"username"`
	AuthUsername  string `json:"auth_username"`
	Domain        string `json:"domain"`
	Transport     string `json:"transport"`
	Port          int    `json:"port"`
	Registrar     string `json:"registrar"`
	OutboundProxy string `json:"outbound_proxy"`
	ExpiryS       int    `json:"expiry_s"`
	Enabled       bool   `json:"enabled"`
	CAFile        string `json:"ca_file"`
	PasswordSaved bool   `json:"password_saved"`
	State         string `json:"state"`
	Cause         string `json:"cause"`
	// Issue 19.
	PickupPrefix    string           `json:"pickup_prefix"`
	VoicemailNumber string           `json:"voicemail_number"`
	MWI             bool             `json:"mwi"`
	Presence        bool             `json:"presence"`
	Voicemail       *sipua.Voicemail `json:"voicemail"` // null while unknown

	MediaEncryption         string `json:"media_encryption"`
	MediaEncryptionRequired bool   `json:"media_encryption_required"`
	StunServer              string `json:"stun_server"`
}

func findAccount(as []store.Account, id string) (store.Account, bool) {
	if id == "" {
		return store.Account{}, false
	}
	i := slices.IndexFunc(as, func(a store.Account) bool { return a.ID == id })
	if i < 0 {
		return store.Account{}, false
	}
	return as[i], true
}

// lineName is the textual name of a line, <username>@<domain> as webhooks say.
func lineName(a store.Account) string { return a.Username + "@" + a.Domain }

// toAccountJSON: state is registered, registering, unregistered, failed or
// disabled; cause says why a registration failed.
func (s *Server) toAccountJSON(a store.Account, states map[string]sipua.AccountStatus) accountJSON {
	out := accountJSON{ID: a.ID, Name: a.Name, Username: a.Username, AuthUsername: a.AuthUsername, Domain: a.Domain,
		Transport: a.Transport, Port: a.Port, Registrar: a.Registrar, OutboundProxy: a.OutboundProxy,
		ExpiryS: a.ExpiryS, Enabled: a.Enabled, CAFile: a.CAFile, PasswordSaved: s.cfg.Secrets.Has("account:" + a.ID),
		PickupPrefix: a.PickupPrefix, VoicemailNumber: a.VoicemailNumber, MWI: a.MWI, Presence: a.Presence,
		MediaEncryption: a.MediaEncryption, MediaEncryptionRequired: a.MediaEncryptionRequired, StunServer: a.StunServer}

	if st, ok := states[a.ID]; ok {
		out.State, out.Cause, out.Voicemail = st.State, st.Cause, st.Voicemail
	}
	if !a.Enabled {
		out.State, out.Cause = "disabled", ""
	}
	if out.State == "" {
		out.State = "unregistered"
	}
	return out
}

// states are the registration states the phone reports, by account id.
func (s *Server) states() map[string]sipua.AccountStatus {
	as := s.cfg.Phone.Accounts()
	m := make(map[string]sipua.AccountStatus, len(as))
	for _, a := range as {
		m[a.ID] = a
	}
	return m
}

// listAccounts: GET /accounts.
func (s *Server) listAccounts(c fiber.Ctx) error {
	as := s.cur.Load().Accounts
	states := s.states()
	out := make([]accountJSON, 0, len(as))
	for _, a := range as {
		out = append(out, s.toAccountJSON(a, states))
	}
	return c.JSON(out)
}

// getAccount: GET /accounts/{id}; unknown: 404 "no account with that id".
func (s *Server) getAccount(c fiber.Ctx) error {
	a, ok := findAccount(s.cur.Load().Accounts, param(c, "id"))
	if !ok {
		return fail(fiber.StatusNotFound, msgNoAccount)
	}
	return c.JSON(s.toAccountJSON(a, s.states()))
}

// accountBody is an account with its password (kept in the keyring as
// "account:<id>", never in settings).
type accountBody struct {
	store.Account
	Password *string `json:"password"`
}

// createAccount: POST /accounts (token), 201; the id is issued here.
func (s *Server) createAccount(c fiber.Ctx) error {
	b := accountBody{Account: store.Account{Enabled: true}}
	if err := decode(c, &b); err != nil {
		return err
	}
	b.ID = uuid.NewString()
	return s.saveAccount(c, b, true)
}

// updateAccount: PUT /accounts/{id} (token): the fields given change.
func (s *Server) updateAccount(c fiber.Ctx) error {
	a, ok := findAccount(s.cur.Load().Accounts, param(c, "id"))
	if !ok {
		return fail(fiber.StatusNotFound, msgNoAccount)
	}
	b := accountBody{Account: a}
	if err := decode(c, &b); err != nil {
		return err
	}
	if b.ID != a.ID {
		return fail(fiber.StatusBadRequest, "an account id never changes")
	}
	return s.saveAccount(c, b, false)
}

var errNoSuchAccount = errors.New(msgNoAccount)

// msgPasswordNotKept: POST or PUT /accounts while the keyring refuses the
// account's password (locked, a full disk under secrets.json).
const msgPasswordNotKept = "the keyring did not let the account's password be kept; nothing was changed, try again"

func (s *Server) saveAccount(c fiber.Ctx, b accountBody, isNew bool) error {
	b.PasswordSaved = false
	// The password is kept first: when the keyring refuses it (locked, a
	// full disk under secrets.json) nothing changes and the client is told.
	// Kept after the account, such a refusal left a new account without its
	// password, registering in vain (the client, told 500, added it again on
	// its retry), and a changed account's changes saved with the old
	// password. When the account is then refused, the password before is
	// put back: no password without its account, and none changed for an
	// account left as it was.
	name := "account:" + b.ID
	old, oldErr := "", store.ErrNoSecret
	if b.Password != nil {
		if !isNew {
			old, oldErr = s.cfg.Secrets.Get(name)
		}
		if err := s.cfg.Secrets.Set(name, *b.Password); err != nil {
			s.log.Warn("account not saved: the keyring refused its password", "account", b.ID, "err", err)
			return fail(fiber.StatusInternalServerError, msgPasswordNotKept)
		}
	}
	st, err := s.cfg.Settings.Update(func(st *store.Settings) error {
		if isNew {
			st.Accounts = append(st.Accounts, b.Account)
		} else {
			i := slices.IndexFunc(st.Accounts, func(a store.Account) bool { return a.ID == b.ID })
			if i < 0 {
				return errNoSuchAccount
			}
			st.Accounts[i] = b.Account
		}
		// Defaults first (transport udp, expiry 3600 s), then the check, whose
		// errors name the request's own fields (transport, not accounts[2].transport).
		st.Normalize()
		if err := st.Validate(); err != nil {
			i := slices.IndexFunc(st.Accounts, func(a store.Account) bool { return a.ID == b.ID })
			return requestError(err, fmt.Sprintf("accounts[%d].", i))
		}
		return nil
	})
	if err != nil && b.Password != nil {
		switch {
		case oldErr == nil:
			_ = s.cfg.Secrets.Set(name, old)
		case errors.Is(oldErr, store.ErrNoSecret):
			_ = s.cfg.Secrets.Delete(name)
		}
	}
	if errors.Is(err, errNoSuchAccount) {
		return fail(fiber.StatusNotFound, msgNoAccount)
	}
	if err != nil {
		return settingsError(err)
	}
	s.cur.Store(&st)
	if b.Password != nil {
		// A new password registers again at once, not at the next refresh.
		if r, ok := s.cfg.Phone.(interface{ Reregister(string) bool }); ok {
			r.Reregister(b.ID)
		}
	}
	a, _ := findAccount(st.Accounts, b.ID)
	if isNew {
		c.Set(fiber.HeaderLocation, "/accounts/"+a.ID)
		return created(c, s.toAccountJSON(a, s.states()))
	}
	return c.JSON(s.toAccountJSON(a, s.states()))
}

// deleteAccount: DELETE /accounts/{id} (token), 204; its password goes too.
// msgPasswordKept: DELETE /accounts/{id} while the keyring refuses to
// remove the account's password (locked, a full disk under secrets.json).
const msgPasswordKept = "the keyring did not let the account's password be removed; the account is kept, try again"

func (s *Server) deleteAccount(c fiber.Ctx) error {
	id := param(c, "id")
	if !slices.ContainsFunc(s.cfg.Settings.Get().Accounts, func(a store.Account) bool { return a.ID == id }) {
		return fail(fiber.StatusNotFound, msgNoAccount)
	}
	// The password goes first: when the keyring refuses, the account stays
	// and the client is told. Removed after the account, such a refusal left
	// the password in the keyring for good, a secret without its account
	// that no later request could name (the retry answered 404).
	name := "account:" + id
	pw, had := s.cfg.Secrets.Get(name)
	if err := s.cfg.Secrets.Delete(name); err != nil && !errors.Is(err, store.ErrNoSecret) {
		s.log.Warn("account kept: its password could not be removed", "account", id, "err", err)
		return fail(fiber.StatusInternalServerError, msgPasswordKept)
	}
	st, err := s.cfg.Settings.Update(func(st *store.Settings) error {
		i := slices.IndexFunc(st.Accounts, func(a store.Account) bool { return a.ID == id })
		if i < 0 {
			return errNoSuchAccount
		}
		st.Accounts = slices.Delete(st.Accounts, i, i+1)
		return nil
	})
	if err != nil && !errors.Is(err, errNoSuchAccount) && had == nil {
		_ = s.cfg.Secrets.Set(name, pw) // the account stays: so does its password
	}
	if errors.Is(err, errNoSuchAccount) {
		return fail(fiber.StatusNotFound, msgNoAccount)
	}
	if err != nil {
		return settingsError(err)
	}
	s.cur.Store(&st)
	return c.SendStatus(fiber.StatusNoContent)
}
