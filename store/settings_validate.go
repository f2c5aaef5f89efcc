package store

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/softphone/softphone/internal/phonenum"
)

// FieldError is a setting with a bad value. Key is the dotted path of the
// setting in settings.json, e.g. `api.port` or `accounts[0].transport`.
type FieldError struct {
	Key string
	Msg string
}

func (e *FieldError) Error() string { return e.Key + ": " + e.Msg }

// Unwrap makes every FieldError an ErrInvalid.
func (e *FieldError) Unwrap() error { return ErrInvalid }

type checker struct{ errs []error }

func (c *checker) fail(key, format string, args ...any) {
	c.errs = append(c.errs, &FieldError{Key: key, Msg: fmt.Sprintf(format, args...)})
}

func (c *checker) port(key string, p int, allowZero bool) {
	lo := 1
	if allowZero {
		lo = 0
	}
	if p < lo || p > 65535 {
		c.fail(key, "must be %d-65535, got %d", lo, p)
	}
}

func (c *checker) oneOf(key, v string, allowed []string) {
	if !slices.Contains(allowed, v) {
		c.fail(key, "must be one of %s, got %q", strings.Join(allowed, ", "), v)
	}
}

func (c *checker) subset(key string, vs, allowed []string) {
	seen := map[string]bool{}
	for i, v := range vs {
		k := fmt.Sprintf("%s[%d]", key, i)
		if !slices.Contains(allowed, v) {
			c.fail(k, "must be one of %s, got %q", strings.Join(allowed, ", "), v)
		} else if seen[v] {
			c.fail(k, "%q is listed twice", v)
		}
		seen[v] = true
	}
}

func (c *checker) percent(key string, v int) {
	if v < 0 || v > 100 {
		c.fail(key, "must be 0-100, got %d", v)
	}
}

func (c *checker) httpURL(key, v string, required bool) {
	if v == "" {
		if required {
			c.fail(key, "must be set")
		}
		return
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		c.fail(key, "must be an http:// or https:// address, got %q", v)
	}
}

// Validate checks every setting. The error joins one *FieldError per bad
// setting (each also matches ErrInvalid), e.g. `api.port: must be 1-65535, got 0`.
func (s Settings) Validate() error {
	var c checker
	c.port("ui.port", s.UI.Port, false)
	c.port("api.port", s.API.Port, false)
	if s.API.Port == s.UI.Port {
		c.fail("api.port", "must differ from ui.port (%d)", s.UI.Port)
	}
	c.subset("api.disabled", s.API.Disabled, AccessGroups)
	for i, o := range s.API.AllowedOrigins {
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") {
			c.fail(fmt.Sprintf("api.allowed_origins[%d]", i), "must be an origin like http://localhost:3000, got %q", o)
		}
	}

	c.oneOf("webhooks.method", s.Webhooks.Method, WebhookMethods)
	c.httpURL("webhooks.url", s.Webhooks.URL, s.Webhooks.Enabled)
	c.subset("webhooks.silenced", s.Webhooks.Silenced, WebhookEvents)
	if h := s.Webhooks.HeaderName; h != "" && !isToken(h) {
		c.fail("webhooks.header_name", "must be an HTTP header name, got %q", h)
	}

	if host, p, err := net.SplitHostPort(s.SIP.Listen); err != nil {
		c.fail("sip.listen", "must be host:port, got %q", s.SIP.Listen)
	} else if n, err := strconv.Atoi(p); err != nil || n < 0 || n > 65535 {
		c.fail("sip.listen", "port must be 0-65535, got %q", p)
	} else if host != "" && net.ParseIP(host) == nil && strings.ContainsAny(host, " /") {
		c.fail("sip.listen", "bad host %q", host)
	}
	c.sipTLS(s.SIP)
	c.port("sip.rtp_port_min", s.SIP.RTPPortMin, false)
	c.port("sip.rtp_port_max", s.SIP.RTPPortMax, false)
	if s.SIP.RTPPortMax-s.SIP.RTPPortMin < 3 {
		c.fail("sip.rtp_port_max", "must be at least sip.rtp_port_min+3 (%d), got %d", s.SIP.RTPPortMin+3, s.SIP.RTPPortMax)
	}
	c.oneOf("sip.accept_calls_from", s.SIP.AcceptCallsFrom, AcceptCallsFromValues)
	if s.SIP.RingTimeoutS < 1 || s.SIP.RingTimeoutS > 3600 {
		c.fail("sip.ring_timeout_s", "must be 1-3600 seconds, got %d", s.SIP.RingTimeoutS)
	}
	// Under 5 s a far end's ordinary gap (a re-INVITE, a jitter burst, a
	// PBX's music on hold starting) would end the call.
	if m := s.SIP.MediaTimeoutS; m != 0 && (m < 5 || m > 3600) {
		c.fail("sip.media_timeout_s", "must be 0 (never) or 5-3600 seconds, got %d", m)
	}
	ids := map[string]bool{}
	for i, a := range s.Accounts {
		c.account(i, a, ids)
	}
	c.oneOf("sip.presence_status", s.SIP.PresenceStatus, PresenceStatuses)
	if r := s.SIP.DefaultRegion; r != "" && !phonenum.ValidRegion(r) {
		c.fail("sip.default_region", "must be a region code like DE or US, got %q", r)
	}
	if sel := s.SIP.SelectedAccount; sel != "" && !ids[sel] {
		c.fail("sip.selected_account", "no account with id %q", sel)
	}

	c.percent("audio.mic_volume", s.Audio.MicVolume)
	c.percent("audio.speaker_volume", s.Audio.SpeakerVolume)
	c.percent("audio.ringer_volume", s.Audio.RingerVolume)
	c.subset("audio.codecs", s.Audio.Codecs, KnownCodecs)
	if len(s.Audio.Codecs) == 0 {
		c.fail("audio.codecs", "must list at least one of %s", strings.Join(KnownCodecs, ", "))
	}
	c.oneOf("appearance.theme", s.Appearance.Theme, Themes)
	c.oneOf("appearance.language", s.Appearance.Language, Languages)
	c.hotkeys(s.Hotkeys)
	c.oneOf("diagnostics.log_level", s.Diagnostics.LogLevel, LogLevels)
	c.oneOf("recording.mode", s.Recording.Mode, RecordingModes)
	c.oneOf("transcription.recogniser", s.Transcription.Recogniser, Recognisers)
	c.httpURL("transcription.url", s.Transcription.URL, s.Transcription.Recogniser == "http")
	return errors.Join(c.errs...)
}

func (c *checker) account(i int, a Account, ids map[string]bool) {
	key := func(f string) string { return fmt.Sprintf("accounts[%d].%s", i, f) }
	switch {
	case a.ID == "":
		c.fail(key("id"), "must be set")
	case ids[a.ID]:
		c.fail(key("id"), "%q is used by another account", a.ID)
	}
	ids[a.ID] = true
	c.oneOf(key("transport"), a.Transport, Transports)
	c.port(key("port"), a.Port, true)
	if a.ExpiryS != 0 && (a.ExpiryS < 30 || a.ExpiryS > 86400) {
		c.fail(key("expiry_s"), "must be 30-86400 (or 0 for %d), got %d", DefaultAccountExpiryS, a.ExpiryS)
	}
	if a.Enabled && strings.TrimSpace(a.Domain) == "" {
		c.fail(key("domain"), "must be set for an enabled account")
	}
	if a.Enabled && strings.TrimSpace(a.Username) == "" {
		c.fail(key("username"), "must be set for an enabled account")
	}
	if strings.ContainsAny(a.Domain, " /@") {
		c.fail(key("domain"), "must be a host name or address, got %q", a.Domain)
	}
	if p := a.PickupPrefix; len(p) > 8 || strings.Trim(p, "0123456789*#") != "" {
		c.fail(key("pickup_prefix"), "must be up to 8 of the keys 0-9 * #, got %q", p)
	}
	if v := a.VoicemailNumber; len(v) > 64 || strings.ContainsAny(v, " \t\r\n<>\"") {
		c.fail(key("voicemail_number"), "must be a number or SIP address without spaces (up to 64 characters), got %q", v)
	}
	c.accountSecurity(key, a)
}

func (c *checker) hotkeys(h HotkeySettings) {
	seen := map[string]string{}
	for _, k := range []struct{ key, v string }{
		{"hotkeys.answer", h.Answer}, {"hotkeys.hangup", h.Hangup}, {"hotkeys.hold", h.Hold}, {"hotkeys.mute", h.Mute},
	} {
		if k.v == "" {
			continue
		}
		norm := strings.ToLower(strings.ReplaceAll(k.v, " ", ""))
		if other, ok := seen[norm]; ok {
			c.fail(k.key, "%q is already used by %s", k.v, other)
		}
		seen[norm] = k.key
	}
}

// isToken reports whether s is an HTTP token (RFC 9110 5.6.2).
func isToken(s string) bool {
	for _, r := range s {
		if r > 126 || r <= 32 || strings.ContainsRune(`"(),/:;<=>?@[\]{}`, r) {
			return false
		}
	}
	return s != ""
}
