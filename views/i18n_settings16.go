package views

func init() {
	for k, v := range enSettings16 {
		en[k] = v
	}
	for k, v := range deSettings16 {
		de[k] = v
	}
}

// enSettings16 and deSettings16 are the texts of the registration state on
// the Settings page, the registration test, the welcome card and the
// recording pages (issue 16 items 6-8).
var enSettings16 = map[string]string{
	"regcause.401":      "wrong password",
	"regcause.403":      "the PBX refuses this account",
	"regcause.404":      "no such user at the PBX",
	"regcause.423":      "the PBX wants a longer registration interval",
	"regcause.503":      "the PBX is not available",
	"regcause.5xx":      "the PBX has a fault",
	"regcause.timeout":  "no answer from the PBX",
	"regcause.network":  "network unreachable",
	"regtest.running":   "Asking the PBX… (up to 20 s)",
	"regtest.noanswer":  "no answer from the PBX within 20 s",
	"regtest.ok":        "The PBX accepts this account and password",
	"regtest.answered":  "The PBX answered: %s",
	"regtest.network":   "The PBX cannot be reached: %s",
	"settings.regstate": "Registration",
}

var deSettings16 = map[string]string{
	"regcause.401":      "falsches Passwort",
	"regcause.403":      "die Telefonanlage weist dieses Konto ab",
	"regcause.404":      "Benutzer bei der Telefonanlage unbekannt",
	"regcause.423":      "die Telefonanlage verlangt ein längeres Anmeldeintervall",
	"regcause.503":      "die Telefonanlage ist nicht verfügbar",
	"regcause.5xx":      "Störung bei der Telefonanlage",
	"regcause.timeout":  "keine Antwort der Telefonanlage",
	"regcause.network":  "Netzwerk nicht erreichbar",
	"regtest.running":   "Frage die Telefonanlage… (bis zu 20 s)",
	"regtest.noanswer":  "keine Antwort der Telefonanlage innerhalb von 20 s",
	"regtest.ok":        "Die Telefonanlage nimmt dieses Konto und Passwort an",
	"regtest.answered":  "Die Telefonanlage antwortete: %s",
	"regtest.network":   "Die Telefonanlage ist nicht erreichbar: %s",
	"settings.regstate": "Anmeldung",
}

func init() {
	for k, v := range map[string]string{
		"welcome.title":       "Welcome: set up your phone line",
		"welcome.intro":       "Enter what your PBX or provider gave you. The phone tries it at once and then shows the dial pad.",
		"welcome.server":      "Server",
		"welcome.server.hint": "The PBX's name or address, e.g. pbx.example.com",
		"welcome.user":        "User",
		"welcome.more":        "More",
		"welcome.connect":     "Connect",
		"welcome.skip":        "Not now: show the dial pad",
		"welcome.saved":       "Connected: your line is set up.",
	} {
		en[k] = v
	}
	for k, v := range map[string]string{
		"welcome.title":       "Willkommen: Telefonleitung einrichten",
		"welcome.intro":       "Geben Sie ein, was Ihre Telefonanlage oder Ihr Anbieter Ihnen gegeben hat. Das Telefon probiert es sofort aus und zeigt dann die Wähltasten.",
		"welcome.server":      "Server",
		"welcome.server.hint": "Name oder Adresse der Telefonanlage, z. B. pbx.example.com",
		"welcome.user":        "Benutzer",
		"welcome.more":        "Mehr",
		"welcome.connect":     "Verbinden",
		"welcome.skip":        "Jetzt nicht: Wähltasten zeigen",
		"welcome.saved":       "Verbunden: Ihre Leitung ist eingerichtet.",
	} {
		de[k] = v
	}
}

// The recording pages (/ui) in the phone's language.
func init() {
	for k, v := range map[string]string{
		"rec.none": "No recordings yet.", "rec.col.when": "When", "rec.col.direction": "Direction", "rec.col.number": "Number",
		"rec.col.name": "Name", "rec.col.duration": "Duration", "rec.col.outcome": "Outcome", "rec.col.taxonomy": "Taxonomy",
		"rec.col.flags": "Red flags", "rec.dir.in": "Incoming", "rec.dir.out": "Outgoing", "rec.speaker.local": "Me",
		"rec.speaker.remote": "Other party", "rec.unknown": "unknown party", "rec.heading": "Call with %s, %s",
		"rec.crumbs": "Where you are", "rec.all": "All recordings", "rec.history": "The call's history entry",
		"rec.player": "Recording", "rec.transcript": "Transcript", "rec.tr.running": "The transcript is being made.",
		"rec.tr.failed": "The transcript could not be made.", "rec.tr.none": "No transcript.",
	} {
		en[k] = v
	}
	for k, v := range map[string]string{
		"rec.none": "Noch keine Aufnahmen.", "rec.col.when": "Wann", "rec.col.direction": "Richtung", "rec.col.number": "Nummer",
		"rec.col.name": "Name", "rec.col.duration": "Dauer", "rec.col.outcome": "Ausgang", "rec.col.taxonomy": "Einordnung",
		"rec.col.flags": "Warnzeichen", "rec.dir.in": "Eingehend", "rec.dir.out": "Ausgehend", "rec.speaker.local": "Ich",
		"rec.speaker.remote": "Gegenüber", "rec.unknown": "unbekannter Teilnehmer", "rec.heading": "Gespräch mit %s, %s",
		"rec.crumbs": "Wo Sie sind", "rec.all": "Alle Aufnahmen", "rec.history": "Der Verlaufseintrag des Gesprächs",
		"rec.player": "Aufnahme", "rec.transcript": "Abschrift", "rec.tr.running": "Die Abschrift wird erstellt.",
		"rec.tr.failed": "Die Abschrift konnte nicht erstellt werden.", "rec.tr.none": "Keine Abschrift.",
	} {
		de[k] = v
	}
}
