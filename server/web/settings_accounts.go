package web

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v3"
	"github.com/google/uuid"
	"github.com/softphone/softphone/store"
	"github.com/softphone/softphone/views"
)

var accountFields = []string{"name", "username", "auth_username", "password", "domain", "port", "transport", "registrar", "outbound_proxy", "expiry_s",
	"pickup_prefix", "voicemail_number",
	"media_encryption", "media_encryption_required", "stun_server"}

// readAccount reads the account form; errors go next to the fields.
func (s *Server) readAccount(c fiber.Ctx, errs views.Errors) store.Account {
	l := s.lang()
	a := store.Account{
		ID: c.FormValue("id"), Name: strings.TrimSpace(c.FormValue("name")),
		Username: strings.TrimSpace(c.FormValue("username")), AuthUsername: strings.TrimSpace(c.FormValue("auth_username")),
		Domain: strings.TrimSpace(c.FormValue("domain")), Transport: c.FormValue("transport"),
		Registrar: strings.TrimSpace(c.FormValue("registrar")), OutboundProxy: strings.TrimSpace(c.FormValue("outbound_proxy")),
		Enabled:      checked(c, "enabled"),
		PickupPrefix: strings.TrimSpace(c.FormValue("pickup_prefix")), VoicemailNumber: strings.TrimSpace(c.FormValue("voicemail_number")),
		MWI: checked(c, "mwi"), Presence: checked(c, "presence"),
	}
	if p := a.PickupPrefix; len(p) > 8 || strings.Trim(p, "0123456789*#") != "" {
		errs["pickup_prefix"] = l.T("err.pickup_prefix")
	}
	if v := a.VoicemailNumber; len(v) > 64 || strings.ContainsAny(v, " \t<>\"") {
		errs["voicemail_number"] = l.T("err.voicemail_number")
	}
	readAccountSecurity(c, &a, errs, l)
	if a.Username == "" {
		errs["username"] = l.T("err.required")
	}
	if a.Domain == "" {
		errs["domain"] = l.T("err.required")
	} else if strings.ContainsAny(a.Domain, " /@") {
		errs["domain"] = l.T("err.domain")
	}
	if a.Transport != "udp" && a.Transport != "tcp" && a.Transport != "tls" {
		errs["transport"] = l.F("err.oneof", "udp, tcp, tls")
	}
	if v := strings.TrimSpace(c.FormValue("port")); v != "" {
		a.Port = intField(c, "port", 1, 65535, errs, l)
	}
	if v := strings.TrimSpace(c.FormValue("expiry_s")); v != "" {
		a.ExpiryS = intField(c, "expiry_s", 30, 86400, errs, l)
	}
	// Text no account may hold (formtext.go): refused next to its field, and
	// not shown back (a megabyte of it, or broken bytes, would be).
	for _, f := range []struct {
		key string
		v   *string
		max int
	}{
		{"name", &a.Name, maxNameBytes}, {"username", &a.Username, maxNameBytes},
		{"auth_username", &a.AuthUsername, maxNameBytes}, {"domain", &a.Domain, maxHostBytes},
		{"registrar", &a.Registrar, maxHostBytes}, {"outbound_proxy", &a.OutboundProxy, maxHostBytes},
	} {
		if why := badText(l, *f.v, f.max); why != "" {
			errs[f.key], *f.v = why, ""
		}
	}
	return a
}

// saveAccount is POST /settings/accounts: do=save adds or changes the
// account (password to the keyring), do=test asks the PBX and shows its answer.
func (s *Server) saveAccount(c fiber.Ctx) error {
	errs := views.Errors{}
	a := s.readAccount(c, errs)
	d := s.settingsData(c)
	d.EditAccount = a
	if len(errs) > 0 {
		d.Errors = errs
		return s.renderSettings(c, d, fiber.StatusUnprocessableEntity)
	}
	if c.FormValue("do") == "test" {
		return s.testAccount(c, d, a)
	}
	if a.ID == "" {
		a.ID = uuid.NewString()
	}
	// The password is kept first: when the keyring refuses it (locked, a
	// full disk under secrets.json) nothing changes and the page says why,
	// as the API's POST and PUT /accounts. Kept after the account, such a
	// refusal left a new account without its password, registering in vain
	// (the form, still a new account's, added it a second time on the next
	// press), and a changed account's changes saved with the old password.
	// When the account is then refused, the password before is put back.
	name := "account:" + a.ID
	changesSecret := s.cfg.Secrets != nil && (c.FormValue("password") != "" || checked(c, "password.clear"))
	old, oldErr := "", store.ErrNoSecret
	if changesSecret {
		if slices.ContainsFunc(s.cfg.Settings.Get().Accounts, func(x store.Account) bool { return x.ID == a.ID }) {
			old, oldErr = s.cfg.Secrets.Get(name)
		}
		s.setSecret(c, "password", name, &d)
		if len(d.Errors) > 0 {
			return s.renderSettings(c, d, fiber.StatusUnprocessableEntity)
		}
	}
	_, err := s.cfg.Settings.Update(func(st *store.Settings) error {
		for i := range st.Accounts {
			if st.Accounts[i].ID == a.ID {
				st.Accounts[i] = a
				return nil
			}
		}
		st.Accounts = append(st.Accounts, a)
		return nil
	})
	if err != nil {
		if changesSecret {
			switch {
			case oldErr == nil:
				_ = s.cfg.Secrets.Set(name, old)
			case errors.Is(oldErr, store.ErrNoSecret):
				_ = s.cfg.Secrets.Delete(name) // no password without its account
			}
		}
		placeSaveError(s, c, err, accountFields, "_accounts", errs)
		d.Errors = errs
		return s.renderSettings(c, d, fiber.StatusUnprocessableEntity)
	}
	if c.FormValue("password") != "" || checked(c, "password.clear") {
		s.reregister(a.ID)
	}
	s.hub.poke()
	d = s.settingsData(c)
	d.Saved = "accounts"
	return s.renderSettings(c, d, fiber.StatusOK)
}

// deleteAccount is POST /settings/accounts/:id/delete; its password goes too.
func (s *Server) deleteAccount(c fiber.Ctx) error {
	id := c.Params("id")
	// The password goes first: when the keyring refuses (locked, a full
	// disk under secrets.json) the account stays and the page says so.
	// Removed after the account, such a refusal was only logged and left the
	// password in the keyring for good, a secret without its account.
	name := "account:" + id
	pw, had := "", store.ErrNoSecret
	if s.cfg.Secrets != nil && slices.ContainsFunc(s.cfg.Settings.Get().Accounts, func(a store.Account) bool { return a.ID == id }) {
		pw, had = s.cfg.Secrets.Get(name)
		if err := s.cfg.Secrets.Delete(name); err != nil && !errors.Is(err, store.ErrNoSecret) {
			s.log.Warn("web: account kept, its password could not be removed", "account", id, "err", err)
			return s.fail(c, fiber.StatusServiceUnavailable, s.lang().T("account.password_kept"))
		}
	}
	_, err := s.cfg.Settings.Update(func(st *store.Settings) error {
		out := st.Accounts[:0]
		for _, a := range st.Accounts {
			if a.ID != id {
				out = append(out, a)
			}
		}
		st.Accounts = out
		if st.SIP.SelectedAccount == id {
			st.SIP.SelectedAccount = ""
		}
		return nil
	})
	if err != nil {
		if had == nil {
			_ = s.cfg.Secrets.Set(name, pw) // the account stays: so does its password
		}
		if store.IsDiskFull(err) {
			s.log.Warn("web: account kept, the settings could not be saved", "account", id, "err", err)
			return s.fail(c, fiber.StatusServiceUnavailable, s.lang().T("settings.diskfull"))
		}
		return s.fail(c, fiber.StatusBadRequest, err.Error())
	}
	s.hub.poke()
	return s.redirect(c, "/settings#sec-accounts")
}

// webhookTest is POST /settings/webhooks/test: the receiver's answer is shown.
func (s *Server) webhookTest(c fiber.Ctx) error {
	d := s.settingsData(c)
	if s.cfg.WebhookTest == nil {
		d.WebhookTestErr = ErrNoWebhooks.Error()
		return s.renderSettings(c, d, fiber.StatusOK)
	}
	ctx, cancel := context.WithTimeout(c.Context(), 20*time.Second)
	defer cancel()
	status, body, err := s.cfg.WebhookTest(ctx)
	if err != nil {
		d.WebhookTestErr = err.Error()
	} else {
		if len(body) > 2000 {
			body = body[:2000] + "…"
		}
		d.WebhookTest = strconv.Itoa(status) + "\n" + body
	}
	return s.renderSettings(c, d, fiber.StatusOK)
}

// webhookResend is POST /settings/webhooks/resend/:id.
func (s *Server) webhookResend(c fiber.Ctx) error {
	if s.cfg.Webhooks == nil {
		return s.fail(c, fiber.StatusServiceUnavailable, ErrNoWebhooks.Error())
	}
	if err := s.cfg.Webhooks.Resend(c.Context(), c.Params("id")); err != nil {
		return s.fail(c, fiber.StatusBadRequest, s.resendWords(err))
	}
	return s.renderSettings(c, s.settingsData(c), fiber.StatusOK)
}
