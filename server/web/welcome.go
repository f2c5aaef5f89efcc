package web

import (
	"context"

	"github.com/gofiber/fiber/v3"
	"github.com/google/uuid"
	"github.com/softphone/softphone/store"
	"github.com/softphone/softphone/views"
)

// welcomeShown: the phone page is the welcome card while no account is set
// up, unless the person chose to see the dial pad first (?welcome=skip).
func (s *Server) welcomeShown(c fiber.Ctx) bool {
	return len(s.cfg.Settings.Get().Accounts) == 0 && c.Query("welcome") != "skip"
}

// welcome is POST /welcome, the first-run card's form: the account is
// checked, its registration tested against the PBX, and only when the PBX
// takes it saved (password to the keyring) and registered; then the phone
// page (dial pad) follows. Errors stay on the card in the page's language.
func (s *Server) welcome(c fiber.Ctx) error {
	l := s.lang()
	errs := views.Errors{}
	a := s.readAccount(c, errs)
	a.Enabled = true
	pw := c.FormValue("password")
	if why := badText(l, pw, maxPasswordBytes); why != "" {
		errs["password"] = why
	}
	w := views.WelcomeData{Account: a, Errors: errs}
	if len(errs) > 0 {
		return s.renderWelcome(c, w, fiber.StatusUnprocessableEntity)
	}
	if s.cfg.Phone == nil {
		w.Failed = l.T("err.nophone")
		return s.renderWelcome(c, w, fiber.StatusOK)
	}
	ctx, cancel := context.WithTimeout(c.Context(), regTestWait)
	defer cancel()
	answer, err := s.cfg.Phone.TestRegistration(ctx, a, pw)
	if err != nil {
		_, w.Failed = regTestWords(l, answer, err, ctx.Err() != nil)
		return s.renderWelcome(c, w, fiber.StatusOK)
	}
	a.ID = uuid.NewString()
	// The password first: the line starts registering as soon as the
	// account is saved, and must not go out without it.
	if s.cfg.Secrets != nil && pw != "" {
		if err := s.cfg.Secrets.Set("account:"+a.ID, pw); err != nil {
			s.log.Warn("web: keyring", "secret", "account:"+a.ID, "err", err)
			if store.IsDiskFull(err) { // the keyring's file fallback in the home
				w.Failed = l.T("welcome.diskfull")
			} else {
				w.Errors["password"] = l.T("err.keyring")
			}
			return s.renderWelcome(c, w, fiber.StatusUnprocessableEntity)
		}
	}
	if _, err := s.cfg.Settings.Update(func(st *store.Settings) error {
		st.Accounts = append(st.Accounts, a)
		return nil
	}); err != nil {
		if s.cfg.Secrets != nil {
			_ = s.cfg.Secrets.Delete("account:" + a.ID) // no account, no password
		}
		if store.IsDiskFull(err) {
			// settings.json is replaced atomically: the old one stands.
			s.log.Warn("web: welcome: settings not saved", "err", err)
			w.Failed = l.T("welcome.diskfull")
		} else {
			placeErrors(err, accountFields, "_accounts", w.Errors)
		}
		return s.renderWelcome(c, w, fiber.StatusUnprocessableEntity)
	}
	s.hub.poke()
	return s.redirect(c, "/")
}

func (s *Server) renderWelcome(c fiber.Ctx, w views.WelcomeData, status int) error {
	c.Status(status)
	views.LocalErrors(s.lang(), w.Errors)
	return s.render(c, views.WelcomePage(s.fullPage(c, "phone"), w))
}
