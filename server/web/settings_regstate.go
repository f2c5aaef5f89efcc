package web

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v3"
	"github.com/softphone/softphone/sipua"
	"github.com/softphone/softphone/store"
	"github.com/softphone/softphone/views"
)

// regTestWait is how long "Test registration" waits for the PBX's answer;
// the words for silence say these 20 s.
const regTestWait = 20 * time.Second

// reregister has the account register again at once with its new password
// (sipua's Reregister), so the page's "registered" is about the password
// just saved, not the one before.
func (s *Server) reregister(id string) {
	if r, ok := s.cfg.Phone.(interface{ Reregister(string) bool }); ok {
		r.Reregister(id)
	}
}

// regStatesPart is the "regstates" event: every account's registration
// state as the Settings page shows it beside the account.
func (s *Server) regStatesPart(l views.L) templ.Component {
	list := s.accountViews()
	for i := range list {
		if !list[i].Enabled {
			list[i].State, list[i].Cause = "disabled", ""
		}
	}
	return views.RegStates(l, list)
}

// regStateMap is accountViews by account id, for the Settings page's first paint.
func (s *Server) regStateMap() map[string]views.AccountView {
	m := map[string]views.AccountView{}
	for _, a := range s.accountViews() {
		m[a.ID] = a
	}
	return m
}

// testAccount is "Test registration": the PBX's answer in words, or that
// none came within regTestWait.
func (s *Server) testAccount(c fiber.Ctx, d views.SettingsData, a store.Account) error {
	l := s.lang()
	if s.cfg.Phone == nil {
		d.RegTestErr = l.T("err.nophone")
		return s.renderSettings(c, d, fiber.StatusOK)
	}
	pw := c.FormValue("password")
	if pw == "" && a.ID != "" && s.cfg.Secrets != nil {
		if v, err := s.cfg.Secrets.Get("account:" + a.ID); err == nil {
			pw = v
		}
	}
	ctx, cancel := context.WithTimeout(c.Context(), regTestWait)
	defer cancel()
	answer, err := s.cfg.Phone.TestRegistration(ctx, a, pw)
	d.RegTest, d.RegTestErr = regTestWords(l, answer, err, ctx.Err() != nil)
	return s.renderSettings(c, d, fiber.StatusOK)
}

// regTestWords words a registration test: ok when the PBX took the
// account, else bad (its answer with the cause, no answer, no network).
func regTestWords(l views.L, answer string, err error, timedOut bool) (ok, bad string) {
	switch {
	case err == nil:
		return l.T("regtest.ok") + " (" + answer + ")", ""
	case answer != "":
		return "", l.F("regtest.answered", views.CauseWords(l, answer))
	case timedOut || errors.Is(err, context.DeadlineExceeded) || strings.HasSuffix(err.Error(), ": timeout"):
		return "", l.T("regtest.noanswer")
	case errors.Is(err, sipua.ErrNotServing):
		return "", l.T("err.nophone")
	}
	msg := err.Error()
	if i := strings.Index(msg, "network error: "); i >= 0 {
		msg = msg[i+len("network error: "):]
	}
	return "", l.F("regtest.network", msg)
}
