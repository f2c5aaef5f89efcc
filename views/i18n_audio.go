package views

func init() {
	for k, v := range enAudio {
		en[k] = v
	}
	for k, v := range deAudio {
		de[k] = v
	}
}

// enAudio is what the header and the call cards say about the tab's audio
// (issue 13): which page holds it and, when none can, why and what to do.
var enAudio = map[string]string{
	"audio.here":            "Audio: this tab",
	"audio.live":            "Audio: this tab (connected)",
	"audio.connecting":      "Connecting this tab's audio…",
	"audio.other":           "Audio is in another tab",
	"audio.none":            "No tab is open for the audio: open the phone page",
	"audio.blocked":         "Microphone blocked: allow it for this page in the browser's site settings, then click Use this tab.",
	"audio.blocked.firefox": "Microphone blocked: click the crossed-out microphone left of the address, clear \"Blocked\" (or Settings, Privacy & Security, Permissions, Microphone, Settings… and allow this address), then click Use this tab.",
	"audio.blocked.chrome":  "Microphone blocked: click the site icon left of the address, set Microphone to Allow (or Settings, Privacy and security, Site settings, Microphone), then click Use this tab.",
	"audio.nomic":           "No microphone found: connect one, then click Use this tab.",
	"audio.failed":          "This browser could not connect its audio to the phone. Click Use this tab to try again; reloading the page may help.",
	"audio.take":            "Use this tab",
	"dial.noaudio":          "This call would have no audio here.",
	"dial.anyway":           "Call anyway",
	"audio.require_tab":     "Calls through the API need a browser tab holding the audio",
}

var deAudio = map[string]string{
	"audio.here":            "Audio: dieser Tab",
	"audio.live":            "Audio: dieser Tab (verbunden)",
	"audio.connecting":      "Audio dieses Tabs wird verbunden…",
	"audio.other":           "Audio ist in einem anderen Tab",
	"audio.none":            "Kein Tab ist für das Audio geöffnet: Telefonseite öffnen",
	"audio.blocked":         "Mikrofon blockiert: in den Website-Einstellungen des Browsers für diese Seite erlauben, dann „Diesen Tab nutzen“ klicken.",
	"audio.blocked.firefox": "Mikrofon blockiert: auf das durchgestrichene Mikrofon links der Adresse klicken, „Blockiert“ entfernen (oder Einstellungen, Datenschutz & Sicherheit, Berechtigungen, Mikrofon, Einstellungen… und diese Adresse erlauben), dann „Diesen Tab nutzen“ klicken.",
	"audio.blocked.chrome":  "Mikrofon blockiert: auf das Website-Symbol links der Adresse klicken, Mikrofon auf „Zulassen“ stellen (oder Einstellungen, Datenschutz und Sicherheit, Website-Einstellungen, Mikrofon), dann „Diesen Tab nutzen“ klicken.",
	"audio.nomic":           "Kein Mikrofon gefunden: eines anschließen, dann „Diesen Tab nutzen“ klicken.",
	"audio.failed":          "Dieser Browser konnte sein Audio nicht mit dem Telefon verbinden. „Diesen Tab nutzen“ versucht es erneut; die Seite neu zu laden kann helfen.",
	"audio.take":            "Diesen Tab nutzen",
	"dial.noaudio":          "Dieser Anruf hätte hier kein Audio.",
	"dial.anyway":           "Trotzdem anrufen",
	"audio.require_tab":     "Anrufe über die API brauchen einen Browser-Tab mit dem Audio",
}
