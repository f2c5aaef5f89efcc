package web

import (
	"errors"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v3"
	"github.com/softphone/softphone/desktop"
	"github.com/softphone/softphone/store"
	"github.com/softphone/softphone/views"
)

// sections are the settings forms saved through saveSection.
var sections = map[string]section{
	"audio": {fields: []string{"audio.codecs", "audio.mic_volume", "audio.speaker_volume", "audio.ringer_volume", "audio.require_tab"}, apply: applyAudio},
	"appearance": {fields: []string{"appearance.theme", "appearance.language"}, apply: func(s *Server, c fiber.Ctx, st *store.Settings, errs views.Errors) {
		st.Appearance.Theme = oneOf(c, "appearance.theme", []string{"light", "dark", "system"}, errs, reqLang(c))
		st.Appearance.Language = oneOf(c, "appearance.language", views.Languages, errs, reqLang(c))
	}},
	"startup": {fields: []string{"startup.open_page", "startup.start_at_login"}, apply: func(s *Server, c fiber.Ctx, st *store.Settings, errs views.Errors) {
		st.Startup.OpenPage = checked(c, "startup.open_page")
		st.Startup.StartAtLogin = checked(c, "startup.start_at_login")
	}, after: afterStartup},
	"hotkeys": {fields: []string{"hotkeys.answer", "hotkeys.hangup", "hotkeys.hold", "hotkeys.mute"}, apply: func(s *Server, c fiber.Ctx, st *store.Settings, errs views.Errors) {
		h := &st.Hotkeys
		for key, dst := range map[string]*string{"hotkeys.answer": &h.Answer, "hotkeys.hangup": &h.Hangup, "hotkeys.hold": &h.Hold, "hotkeys.mute": &h.Mute} {
			v := strings.TrimSpace(c.FormValue(key))
			if !validHotkey(v) {
				errs[key] = reqLang(c).T("err.hotkey")
			}
			*dst = v
		}
	}},
	"diagnostics": {fields: []string{"diagnostics.log_level"}, apply: func(s *Server, c fiber.Ctx, st *store.Settings, errs views.Errors) {
		st.Diagnostics.LogLevel = oneOf(c, "diagnostics.log_level", []string{"debug", "info", "warn", "error"}, errs, reqLang(c))
	}},
	"recording": {fields: []string{"recording.mode", "transcription.recogniser", "transcription.url", "transcription.model", "transcription.key"}, apply: applyRecording,
		secrets: func(st *store.Settings) [][2]string {
			return [][2]string{{"transcription.key", "recogniser:" + st.Transcription.Recogniser}}
		}},
	"integration": {fields: []string{"integration.enabled"}, apply: func(s *Server, c fiber.Ctx, st *store.Settings, errs views.Errors) {
		st.Integration.Enabled = checked(c, "integration.enabled")
	}},
	"api": {fields: []string{"api.enabled", "api.port", "api.token"}, apply: applyAPI,
		secrets: func(*store.Settings) [][2]string { return [][2]string{{"api.token", "api-token"}} }},
	"webhooks": {fields: []string{"webhooks.enabled", "webhooks.url", "webhooks.method", "webhooks.header_name", "webhooks.header_value", "webhooks.signing_secret"}, apply: applyWebhooks,
		secrets: func(*store.Settings) [][2]string {
			return [][2]string{{"webhooks.header_value", "webhook-header"}, {"webhooks.signing_secret", "webhook-signing"}}
		}},
}

func checked(c fiber.Ctx, key string) bool { return c.FormValue(key) == "on" }

func oneOf(c fiber.Ctx, key string, allowed []string, errs views.Errors, l views.L) string {
	v := c.FormValue(key)
	if !slices.Contains(allowed, v) {
		errs[key] = l.F("err.oneof", strings.Join(allowed, ", "))
	}
	return v
}

// intField reads a whole number within [lo, hi]; the message says the range.
func intField(c fiber.Ctx, key string, lo, hi int, errs views.Errors, l views.L) int {
	v, err := strconv.Atoi(strings.TrimSpace(c.FormValue(key)))
	if err != nil || v < lo || v > hi {
		errs[key] = l.F("err.range", lo, hi)
	}
	return v
}

func listField(c fiber.Ctx, key string) []string {
	out := []string{}
	for _, p := range strings.FieldsFunc(c.FormValue(key), func(r rune) bool { return r == ',' || r == ' ' || r == '\n' }) {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// multi is every value of a repeated form field (checkbox groups).
func multi(c fiber.Ctx, key string) []string {
	var out []string
	for _, v := range c.Request().PostArgs().PeekMulti(key) {
		out = append(out, string(v))
	}
	if mf, err := c.Request().MultipartForm(); err == nil && mf != nil {
		out = append(out, mf.Value[key]...)
	}
	return out
}

func applyAudio(s *Server, c fiber.Ctx, st *store.Settings, errs views.Errors) {
	l := reqLang(c)
	codecs := listField(c, "audio.codecs")
	known := []string{"PCMU", "PCMA", "G722", "opus"}
	for i, k := range codecs {
		j := slices.IndexFunc(known, func(x string) bool { return strings.EqualFold(x, k) })
		if j < 0 {
			errs["audio.codecs"] = l.F("err.codec", k, strings.Join(known, ", "))
			break
		}
		codecs[i] = known[j]
	}
	if len(codecs) == 0 {
		errs["audio.codecs"] = l.T("err.required")
	}
	st.Audio.Codecs = codecs
	st.Audio.MicVolume = intField(c, "audio.mic_volume", 0, 100, errs, l)
	st.Audio.SpeakerVolume = intField(c, "audio.speaker_volume", 0, 100, errs, l)
	st.Audio.RingerVolume = intField(c, "audio.ringer_volume", 0, 100, errs, l)
	st.Audio.RequireTab = checked(c, "audio.require_tab")
}

func applyRecording(s *Server, c fiber.Ctx, st *store.Settings, errs views.Errors) {
	l := reqLang(c)
	st.Recording.Mode = oneOf(c, "recording.mode", []string{"none", "all", "on-demand"}, errs, l)
	st.Transcription.Recogniser = oneOf(c, "transcription.recogniser", []string{"none", "pocketsphinx", "http"}, errs, l)
	st.Transcription.URL = strings.TrimSpace(c.FormValue("transcription.url"))
	st.Transcription.Model = strings.TrimSpace(c.FormValue("transcription.model"))
	if st.Transcription.Recogniser == "http" && !httpURL(st.Transcription.URL) {
		errs["transcription.url"] = l.T("err.url")
	}
}

func applyAPI(s *Server, c fiber.Ctx, st *store.Settings, errs views.Errors) {
	st.API.Enabled = checked(c, "api.enabled")
	st.API.Port = intField(c, "api.port", 1, 65535, errs, reqLang(c))
	on := multi(c, "api.groups")
	st.API.Disabled = []string{}
	for _, g := range store.AccessGroups {
		if !slices.Contains(on, g) {
			st.API.Disabled = append(st.API.Disabled, g)
		}
	}
	if st.API.Port == s.port {
		errs["api.port"] = reqLang(c).T("err.portinuse")
	}
}

func applyWebhooks(s *Server, c fiber.Ctx, st *store.Settings, errs views.Errors) {
	l := reqLang(c)
	w := &st.Webhooks
	w.Enabled = checked(c, "webhooks.enabled")
	w.URL = strings.TrimSpace(c.FormValue("webhooks.url"))
	w.Method = oneOf(c, "webhooks.method", []string{"POST", "GET"}, errs, l)
	on := multi(c, "webhooks.events")
	w.Silenced = []string{}
	for _, e := range []string{store.EventCallStarted, store.EventCallStateChanged, store.EventCallEnded} {
		if !slices.Contains(on, e) {
			w.Silenced = append(w.Silenced, e)
		}
	}
	w.HeaderName = strings.TrimSpace(c.FormValue("webhooks.header_name"))
	if (w.Enabled || w.URL != "") && !httpURL(strings.NewReplacer("{", "", "}", "").Replace(w.URL)) {
		errs["webhooks.url"] = l.T("err.url")
	}
	if w.HeaderName != "" && strings.ContainsAny(w.HeaderName, " :\r\n") {
		errs["webhooks.header_name"] = l.T("err.header")
	}
}

func httpURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// keepSecret is setSecret for a section's secrets, kept before its
// settings: false when the keyring refused (the words are in errs), and
// else what puts the secret before back (nil when nothing changed, or
// the value before could not be read).
func (s *Server) keepSecret(c fiber.Ctx, field, name string, errs views.Errors) (func(), bool) {
	if c.FormValue(field) == "" && !checked(c, field+".clear") {
		return nil, true
	}
	prev, prevErr := s.cfg.Secrets.Get(name)
	d := views.SettingsData{Errors: errs}
	s.setSecret(c, field, name, &d)
	if _, refused := errs[field]; refused {
		return nil, false
	}
	switch {
	case prevErr == nil:
		return func() { _ = s.cfg.Secrets.Set(name, prev) }, true
	case errors.Is(prevErr, store.ErrNoSecret):
		return func() { _ = s.cfg.Secrets.Delete(name) }, true
	}
	return nil, true
}

// setSecret keeps a typed value in the keyring, or clears it when asked; an
// empty field leaves a saved value as it is. The value is never shown again.
func (s *Server) setSecret(c fiber.Ctx, field, name string, d *views.SettingsData) {
	if s.cfg.Secrets == nil {
		return
	}
	v := c.FormValue(field)
	var err error
	switch {
	case v != "":
		err = s.cfg.Secrets.Set(name, v)
	case checked(c, field+".clear"):
		err = s.cfg.Secrets.Delete(name)
	}
	if err != nil {
		s.log.Warn("web: keyring", "secret", name, "err", err)
		d.Errors[field] = reqLang(c).T("err.keyring")
	}
}

// afterStartup writes or removes the start at login (XDG autostart entry,
// Windows Run value, macOS LaunchAgent) and, when asked, the tel:/sip:/
// callto: handler (package desktop).
func afterStartup(s *Server, c fiber.Ctx, d *views.SettingsData) {
	t := s.desktopTarget()
	if _, err := desktop.SetStartAtLogin(t, d.S.Startup.StartAtLogin); err != nil {
		d.Errors["startup.start_at_login"] = err.Error()
	}
	if checked(c, "links.handler") {
		wrote, err := desktop.Install(t)
		if err != nil {
			d.Errors["_startup"] = err.Error()
			return
		}
		d.DesktopEntry = strings.Join(wrote, ", ")
	}
}

func (s *Server) binary() string {
	if s.cfg.Binary != "" {
		return s.cfg.Binary
	}
	b, err := os.Executable()
	if err != nil {
		return "softphone"
	}
	return b
}

// reqLang is the page language fixed before Update runs: the settings store
// holds its lock while the form is applied, so Get must not be called then.
func reqLang(c fiber.Ctx) views.L {
	l, _ := c.Locals("lang").(views.L)
	return l
}
