package views

// Texts of the origin approvals (issue 12 item 7), kept apart from the big
// dictionaries; init adds them to both languages.
var originsEN = map[string]string{
	"origins.ask":    "%s wants to use this phone: place and control calls, read calls, history and contacts.",
	"origins.allow":  "Allow",
	"origins.deny":   "Deny",
	"origins.title":  "Web pages allowed to use the phone",
	"origins.hint":   "A web page of another address that calls the local API is asked about on the phone page first. Pages allowed there are listed here.",
	"origins.none":   "No web page is allowed yet.",
	"origins.remove": "Remove",
	"origins.gone":   "That question was already answered or has expired.",
	"phone.filled":   "Number filled in from a link. Check it, then press Call.",
}

var originsDE = map[string]string{
	"origins.ask":    "%s möchte dieses Telefon verwenden: Anrufe tätigen und steuern, Anrufe, Verlauf und Kontakte lesen.",
	"origins.allow":  "Erlauben",
	"origins.deny":   "Ablehnen",
	"origins.title":  "Webseiten, die das Telefon verwenden dürfen",
	"origins.hint":   "Ruft eine Webseite einer anderen Adresse die lokale Schnittstelle auf, wird zuerst auf der Telefonseite gefragt. Dort erlaubte Seiten stehen hier.",
	"origins.none":   "Noch keine Webseite erlaubt.",
	"origins.remove": "Entfernen",
	"origins.gone":   "Diese Frage wurde schon beantwortet oder ist abgelaufen.",
	"phone.filled":   "Nummer aus einem Link eingetragen. Bitte prüfen, dann auf Anrufen drücken.",
}

func init() {
	for k, v := range originsEN {
		en[k] = v
	}
	for k, v := range originsDE {
		de[k] = v
	}
}
