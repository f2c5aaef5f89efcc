package web

import (
	"errors"
	"regexp"
	"strings"
	"syscall"

	"github.com/gofiber/fiber/v3"
	"github.com/softphone/softphone/store"
	"github.com/softphone/softphone/views"
)

// errForm: the form has errors next to its fields; nothing was saved.
var errForm = errors.New("the form has errors")

// settingsPage is GET /settings (?account=<id> and ?tax=<code> open an entry in its form).
func (s *Server) settingsPage(c fiber.Ctx) error {
	d := s.settingsData(c)
	if id := c.Query("account"); id != "" {
		for _, a := range d.S.Accounts {
			if a.ID == id {
				d.EditAccount = a
			}
		}
	}
	if code := c.Query("tax"); code != "" && s.cfg.DB != nil {
		if t, err := s.cfg.DB.GetTaxonomy(c.Context(), code); err == nil {
			d.EditTax = t
		}
	}
	return s.renderSettings(c, d, fiber.StatusOK)
}

// settingsData is the settings as shown: secrets only as saved or not.
func (s *Server) settingsData(c fiber.Ctx) views.SettingsData {
	st := s.cfg.Settings.Get()
	if sec := s.cfg.Secrets; sec != nil {
		st.API.TokenSaved = sec.Has("api-token")
		st.Webhooks.HeaderValueSaved = sec.Has("webhook-header")
		st.Webhooks.SigningSecretSaved = sec.Has("webhook-signing")
		st.Transcription.KeySaved = sec.Has("recogniser:" + st.Transcription.Recogniser)
		for i := range st.Accounts {
			st.Accounts[i].PasswordSaved = sec.Has("account:" + st.Accounts[i].ID)
		}
	}
	d := views.SettingsData{S: st, Errors: views.Errors{}, RegStates: s.regStateMap()}
	if s.cfg.Secrets != nil {
		d.Fallback = s.cfg.Secrets.Fallback()
	}
	if s.cfg.API != nil {
		d.APIAddr = s.cfg.API.Addr()
		// Switched on but its port taken: say so, or the person only sees
		// the API not answer.
		if le, ok := s.cfg.API.(APIListenError); ok && d.APIAddr == "" && st.API.Enabled && st.Integration.Enabled {
			switch port, err := le.ListenError(); {
			case err == nil, port != st.API.Port: // listening, or about the port before a change
			case errors.Is(err, syscall.EADDRINUSE):
				d.APIDown = "taken"
			default:
				d.APIDown = "failed"
			}
		}
	}
	d.SIPTrace = s.tracer() != nil
	d.Desktop = s.desktopView()
	if s.cfg.Webhooks != nil {
		if dl, err := s.cfg.Webhooks.Deliveries(c.Context(), 20); err == nil {
			d.Deliveries = dl
		}
	}
	if s.cfg.DB != nil {
		if t, err := s.cfg.DB.ListTaxonomy(c.Context()); err == nil {
			d.Taxonomy = t
		}
	}
	return d
}

func (s *Server) renderSettings(c fiber.Ctx, d views.SettingsData, status int) error {
	views.LocalErrors(s.lang(), d.Errors)
	d.WebhookTestErr = views.StoreMsg(s.lang(), d.WebhookTestErr)
	return s.render(c.Status(status), views.SettingsPage(s.fullPage(c, "settings"), d))
}

// section is how one settings form is read into the settings.
type section struct {
	fields []string // keys the form shows, for placing the store's errors
	apply  func(s *Server, c fiber.Ctx, st *store.Settings, errs views.Errors)
	after  func(s *Server, c fiber.Ctx, d *views.SettingsData) // files, the desktop: after a successful save
	// secrets are the form's fields kept in the keyring, with their keyring
	// names for the settings being saved: kept before the settings are.
	secrets func(st *store.Settings) [][2]string
}

// saveSection is POST /settings/:section. The form is read inside Update, so
// the change is validated, saved and announced at once (effective without
// restart); errors go next to their fields and nothing is saved.
func (s *Server) saveSection(c fiber.Ctx) error {
	name := c.Params("section")
	sec, ok := sections[name]
	if !ok {
		return fiber.ErrNotFound
	}
	errs := views.Errors{}
	// The section's secrets are kept before its settings: when the keyring
	// refuses one (locked, a full disk under secrets.json) nothing is saved
	// and the page says why. Kept after, such a refusal left the settings
	// saved with the secret before: webhooks sent to a new address with the
	// header value (a credential) of the old receiver, a new recogniser
	// address given the old key. When the settings are then refused, the
	// secrets before are put back. The form is checked on a copy first: the
	// keyring (up to 3 s a call) is not asked inside Update, whose lock every
	// reader of the settings waits on.
	var undo []func()
	if sec.secrets != nil && s.cfg.Secrets != nil {
		trial := s.cfg.Settings.Get()
		sec.apply(s, c, &trial, errs)
		if len(errs) == 0 {
			for _, f := range sec.secrets(&trial) {
				back, ok := s.keepSecret(c, f[0], f[1], errs)
				if !ok {
					break
				}
				if back != nil {
					undo = append(undo, back)
				}
			}
		}
		if len(errs) > 0 {
			for i := len(undo) - 1; i >= 0; i-- {
				undo[i]()
			}
			d := s.settingsData(c)
			d.Errors = errs
			return s.renderSettings(c, d, fiber.StatusUnprocessableEntity)
		}
	}
	_, err := s.cfg.Settings.Update(func(st *store.Settings) error {
		sec.apply(s, c, st, errs)
		if len(errs) > 0 {
			return errForm
		}
		return nil
	})
	if err != nil {
		for i := len(undo) - 1; i >= 0; i-- {
			undo[i]()
		}
	}
	if err != nil && !errors.Is(err, errForm) {
		placeSaveError(s, c, err, sec.fields, "_"+name, errs)
	}
	if len(errs) > 0 {
		d := s.settingsData(c)
		d.Errors = errs
		return s.renderSettings(c, d, fiber.StatusUnprocessableEntity)
	}
	d := s.settingsData(c)
	if sec.after != nil {
		sec.after(s, c, &d)
		if len(d.Errors) > 0 {
			return s.renderSettings(c, d, fiber.StatusUnprocessableEntity)
		}
	}
	if sec.after != nil || sec.secrets != nil {
		d = refreshSaved(s, c, d)
	}
	d.Saved = name
	if name == "appearance" && isHTMX(c) {
		c.Set("HX-Refresh", "true") // the whole page changes language or theme
	}
	return s.renderSettings(c, d, fiber.StatusOK)
}

// refreshSaved re-reads the *_saved flags after secrets changed, keeping the rest.
func refreshSaved(s *Server, c fiber.Ctx, d views.SettingsData) views.SettingsData {
	n := s.settingsData(c)
	n.Errors, n.DesktopEntry, n.WebhookTest = d.Errors, d.DesktopEntry, d.WebhookTest
	return n
}

// placeErrors puts the store's validation errors (`api.port: must be 1-65535`)
// next to their fields; one for a key the form does not show goes to the form.
// placeSaveError is placeErrors for a save the settings file refused: on a
// full disk it says so in the page's language. The error was shown as it
// was, English on German pages too, with the settings file's path ("save
// settings /home/…/settings.json: write …: no space left on device").
// settings.json is replaced atomically: the settings before stand.
func placeSaveError(s *Server, c fiber.Ctx, err error, fields []string, fallback string, errs views.Errors) {
	if store.IsDiskFull(err) {
		s.log.Warn("web: settings not saved", "err", err)
		errs[fallback] = reqLang(c).T("settings.diskfull")
		return
	}
	placeErrors(err, fields, fallback, errs)
}

func placeErrors(err error, fields []string, fallback string, errs views.Errors) {
	var walk func(error)
	found := false
	walk = func(e error) {
		fe, isField := e.(*store.FieldError)
		switch {
		case isField:
			key := fe.Key
			if i := strings.Index(key, "]."); i >= 0 && strings.HasPrefix(key, "accounts[") {
				key = key[i+2:]
			}
			for _, f := range fields {
				if f == key {
					errs[key] = fe.Msg
					found = true
					return
				}
			}
			errs[fallback] = fe.Error()
			found = true
		default:
			if j, ok := e.(interface{ Unwrap() []error }); ok {
				for _, x := range j.Unwrap() {
					walk(x)
				}
			} else if u := errors.Unwrap(e); u != nil && u != store.ErrInvalid {
				walk(u)
			}
		}
	}
	walk(err)
	if !found {
		errs[fallback] = err.Error()
	}
}

var hotkeyRe = regexp.MustCompile(`^((ctrl|control|alt|shift|meta|super)\+)*([a-z0-9]|f[0-9]{1,2}|space|enter|escape|[-=,./;'\[\]\\` + "`" + `])$`)

// validHotkey accepts "Alt+A", "Ctrl+Shift+F5", or empty (no hotkey).
func validHotkey(s string) bool {
	return s == "" || hotkeyRe.MatchString(strings.ToLower(strings.ReplaceAll(s, " ", "")))
}
