package store

// Settings is every setting of the phone, as kept in settings.json and as
// returned by GET /settings (rest-api.md "Settings"). It never holds a secret:
// the fields ending in _saved are filled from the keyring when the settings are
// shown, and are ignored when a file is read.
//
// The JSON shape is nested: the key `api.port` of the issue is {"api":{"port":8377}}.
type Settings struct {
	UI            UISettings            `json:"ui"`
	Integration   IntegrationSettings   `json:"integration"`
	API           APISettings           `json:"api"`
	Webhooks      WebhookSettings       `json:"webhooks"`
	SIP           SIPSettings           `json:"sip"`
	Accounts      []Account             `json:"accounts"`
	Audio         AudioSettings         `json:"audio"`
	Appearance    AppearanceSettings    `json:"appearance"`
	Startup       StartupSettings       `json:"startup"`
	Hotkeys       HotkeySettings        `json:"hotkeys"`
	Diagnostics   DiagnosticsSettings   `json:"diagnostics"`
	Recording     RecordingSettings     `json:"recording"`
	Transcription TranscriptionSettings `json:"transcription"`
}

// UISettings are the phone pages' own listener.
type UISettings struct {
	Port int `json:"port"` // default 8376; another free port when taken
}

// IntegrationSettings switch the Integration module (API and webhooks) as a whole.
type IntegrationSettings struct {
	Enabled bool `json:"enabled"` // default true
}

// APISettings are the local control API of rest-api.md.
type APISettings struct {
	Enabled        bool     `json:"enabled"`         // default false (rest-api.md 2)
	Port           int      `json:"port"`            // default 8377
	Disabled       []string `json:"disabled"`        // access groups that are off
	AllowedOrigins []string `json:"allowed_origins"` // CORS origins; empty = any
	TokenSaved     bool     `json:"token_saved"`     // shown only; the token lives in the keyring
}

// Access groups of rest-api.md "What the service does" 6.
const (
	GroupContacts = "contacts"
	GroupHistory  = "history"
	GroupCalls    = "calls"
	GroupAccounts = "accounts"
	GroupSettings = "settings"
	GroupCounters = "counters"
)

// AccessGroups lists every access group, in the order of the spec.
var AccessGroups = []string{GroupContacts, GroupHistory, GroupCalls, GroupAccounts, GroupSettings, GroupCounters}

// WebhookSettings are the webhook sender of webhooks.md.
type WebhookSettings struct {
	Enabled            bool     `json:"enabled"`  // default false
	URL                string   `json:"url"`      // address or GET template
	Method             string   `json:"method"`   // POST (default) or GET
	Silenced           []string `json:"silenced"` // call-started, call-state-changed, call-ended
	HeaderName         string   `json:"header_name"`
	HeaderValueSaved   bool     `json:"header_value_saved"`   // shown only
	SigningSecretSaved bool     `json:"signing_secret_saved"` // shown only
}

// Webhook event names (webhooks.md "Events").
const (
	EventCallStarted      = "call-started"
	EventCallStateChanged = "call-state-changed"
	EventCallEnded        = "call-ended"
)

// SIPSettings are the phone's SIP transport.
type SIPSettings struct {
	Listen              string `json:"listen"`                 // host:port for UDP/TCP, default 127.0.0.1:0 style "0.0.0.0:5060"
	RTPPortMin          int    `json:"rtp_port_min"`           // default 16384
	RTPPortMax          int    `json:"rtp_port_max"`           // default 32767
	DoNotDisturb        bool   `json:"do_not_disturb"`         // incoming calls are declined with 486
	AutoAnswer          bool   `json:"auto_answer"`            // incoming calls are answered at once
	AllowCallInfoAnswer bool   `json:"allow_call_info_answer"` // honour Call-Info: answer-after
	SelectedAccount     string `json:"selected_account"`       // account id used when a call names none
	// AcceptCallsFrom is who may ring the phone (issue 12): "servers" (the
	// accounts' servers, or calls to the Contact we registered) or "anyone".
	AcceptCallsFrom string `json:"accept_calls_from"`
	RingTimeoutS    int    `json:"ring_timeout_s"` // an incoming call rings this long, then ends as missed (no-answer)
	// MediaTimeoutS ends an answered call whose far end sent no RTP and
	// no RTCP for this long while neither side held it (reason
	// media-timeout): a PBX gone without a BYE. 0: never (a far end that
	// suppresses silence without comfort noise or RTCP).
	MediaTimeoutS  int    `json:"media_timeout_s"`
	PresenceStatus string `json:"presence_status"` // the user's own choice: available (default), away, busy
	TLSListen      string `json:"tls_listen"`      // SIP over TLS listener, e.g. ":5061"; empty: off
	TLSCertFile    string `json:"tls_cert_file"`   // its certificate (PEM); empty: one made and kept in the home
	TLSKeyFile     string `json:"tls_key_file"`    // its private key (PEM)
	// DefaultRegion is where numbers without a country code are read
	// when they are matched to contacts (issue 16): a region code like DE
	// or US; empty: only numbers with a country code are normalised.
	DefaultRegion string `json:"default_region"`
}

// Who may call (sip.accept_calls_from).
const (
	AcceptFromServers = "servers"
	AcceptFromAnyone  = "anyone"
)

// AcceptCallsFromValues are the values of sip.accept_calls_from.
var AcceptCallsFromValues = []string{AcceptFromServers, AcceptFromAnyone}

// Account is one SIP line. Its password is in the keyring as "account:<id>".
type Account struct {
	ID            string `json:"id"` // UUID, generated when missing
	Name          string `json:"name"`
	Username      string `json:"username"`
	AuthUsername  string `json:"auth_username"`
	Domain        string `json:"domain"`
	Port          int    `json:"port"`
	Transport     string `json:"transport"` // udp, tcp, tls
	Registrar     string `json:"registrar"`
	OutboundProxy string `json:"outbound_proxy"`
	ExpiryS       int    `json:"expiry_s"`
	Enabled       bool   `json:"enabled"`
	CAFile        string `json:"ca_file"`        // extra CA for TLS, optional
	PasswordSaved bool   `json:"password_saved"` // shown only
	// The office around the phone (issue 19): busy lamps, pickup, presence, voicemail.
	PickupPrefix    string `json:"pickup_prefix"`    // dialled before a colleague's number to pick up (e.g. *8); empty: INVITE with Replaces
	VoicemailNumber string `json:"voicemail_number"` // what "Call voicemail" dials
	MWI             bool   `json:"mwi"`              // subscribe to message-summary (RFC 3842) of the account
	Presence        bool   `json:"presence"`         // publish the user's status and watch contacts' presence (RFC 3856/3903)

	// MediaEncryption is none, sdes or dtls (settings_secure.go);
	// MediaEncryptionRequired refuses calls that cannot be encrypted.
	MediaEncryption         string `json:"media_encryption"`
	MediaEncryptionRequired bool   `json:"media_encryption_required"`
	StunServer              string `json:"stun_server"` // host:port of a STUN server (RFC 8489); empty: none
}

// AudioSettings are devices, volumes and codecs.
type AudioSettings struct {
	Microphone    string   `json:"microphone"` // browser device id; empty = default
	Speaker       string   `json:"speaker"`
	Ringer        string   `json:"ringer"`
	MicVolume     int      `json:"mic_volume"`     // 0-100
	SpeakerVolume int      `json:"speaker_volume"` // 0-100
	RingerVolume  int      `json:"ringer_volume"`  // 0-100
	Codecs        []string `json:"codecs"`         // priority: PCMU, PCMA, G722, opus
	// RequireTab: POST /calls is refused (409) while no browser tab holds
	// the audio; false lets scripts and tests place calls without a tab.
	RequireTab bool `json:"require_tab"`
}

// AppearanceSettings are theme and language.
type AppearanceSettings struct {
	Theme    string `json:"theme"`    // light, dark, system
	Language string `json:"language"` // en, de
}

// StartupSettings say what happens when the phone starts.
type StartupSettings struct {
	OpenPage     bool `json:"open_page"`      // open the phone page in the browser
	StartAtLogin bool `json:"start_at_login"` // XDG autostart entry
}

// HotkeySettings are key combinations for the phone page.
type HotkeySettings struct {
	Answer string `json:"answer"`
	Hangup string `json:"hangup"`
	Hold   string `json:"hold"`
	Mute   string `json:"mute"`
}

// DiagnosticsSettings control logging.
type DiagnosticsSettings struct {
	LogLevel string `json:"log_level"` // debug, info, warn, error
}

// RecordingSettings say which calls are recorded.
type RecordingSettings struct {
	Mode string `json:"mode"` // none, all, on-demand
}

// TranscriptionSettings choose the recogniser of recordings.
type TranscriptionSettings struct {
	Recogniser string `json:"recogniser"` // none, pocketsphinx, http
	URL        string `json:"url"`        // base URL of an OpenAI-compatible /v1/audio/transcriptions
	Model      string `json:"model"`
	KeySaved   bool   `json:"key_saved"` // shown only; key in the keyring as "recogniser:<name>"
}
