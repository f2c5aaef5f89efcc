package store

// Allowed values of enumerated settings.
var (
	Transports     = []string{"udp", "tcp", "tls"}
	WebhookMethods = []string{"POST", "GET"}
	WebhookEvents  = []string{EventCallStarted, EventCallStateChanged, EventCallEnded}
	KnownCodecs    = []string{"PCMU", "PCMA", "G722", "opus"}
	Themes         = []string{"light", "dark", "system"}
	Languages      = []string{"en", "de"}
	LogLevels      = []string{"debug", "info", "warn", "error"}
	RecordingModes = []string{"none", "all", "on-demand"}
	Recognisers    = []string{"none", "pocketsphinx", "http"}
	// PresenceStatuses are the user's own choices (busy also comes by itself
	// during calls, dnd with sip.do_not_disturb); "" is available.
	PresenceStatuses = []string{"", "available", "away", "busy"}
)

// Defaults of a SIP account whose fields are left out of settings.json.
const (
	DefaultAccountTransport = "udp"
	DefaultAccountExpiryS   = 3600
)

// DefaultSettings are the settings of a fresh installation. The API and
// webhooks are off (rest-api.md 2, webhooks.md 2); the SIP listener takes
// port 5060 on every interface, so a PBX can reach the phone for incoming
// calls without extra setup.
func DefaultSettings() Settings {
	return Settings{
		UI:          UISettings{Port: 8376},
		Integration: IntegrationSettings{Enabled: true},
		API:         APISettings{Enabled: false, Port: 8377, Disabled: []string{}, AllowedOrigins: []string{}},
		Webhooks:    WebhookSettings{Enabled: false, Method: "POST", Silenced: []string{}, HeaderName: "Authorization"},
		SIP: SIPSettings{Listen: ":5060", RTPPortMin: 16384, RTPPortMax: 32767, AcceptCallsFrom: AcceptFromServers, RingTimeoutS: 120, MediaTimeoutS: 30,
			PresenceStatus: "available"},
		Accounts: []Account{},
		Audio: AudioSettings{MicVolume: 100, SpeakerVolume: 80, RingerVolume: 80,
			Codecs: []string{"PCMU", "PCMA", "G722", "opus"}, RequireTab: true},
		Appearance:    AppearanceSettings{Theme: "system", Language: "en"},
		Startup:       StartupSettings{OpenPage: true},
		Hotkeys:       HotkeySettings{Answer: "Alt+A", Hangup: "Alt+H", Hold: "Alt+P", Mute: "Alt+M"},
		Diagnostics:   DiagnosticsSettings{LogLevel: "info"},
		Recording:     RecordingSettings{Mode: "none"},
		Transcription: TranscriptionSettings{Recogniser: "none"},
	}
}

// Clone returns a deep copy: the slices of the copy are its own.
func (s Settings) Clone() Settings {
	c := s
	c.API.Disabled = cloneStrings(s.API.Disabled)
	c.API.AllowedOrigins = cloneStrings(s.API.AllowedOrigins)
	c.Webhooks.Silenced = cloneStrings(s.Webhooks.Silenced)
	c.Audio.Codecs = cloneStrings(s.Audio.Codecs)
	if s.Accounts != nil {
		c.Accounts = append([]Account{}, s.Accounts...)
	}
	return c
}

// StripSaved clears the display-only *_saved fields, which say whether a
// secret is in the keyring and are never kept in settings.json.
func (s *Settings) StripSaved() {
	s.API.TokenSaved = false
	s.Webhooks.HeaderValueSaved = false
	s.Webhooks.SigningSecretSaved = false
	s.Transcription.KeySaved = false
	for i := range s.Accounts {
		s.Accounts[i].PasswordSaved = false
	}
}

func cloneStrings(s []string) []string {
	if s == nil {
		return nil
	}
	return append([]string{}, s...)
}
