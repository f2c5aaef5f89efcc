package views

func init() {
	for k, v := range enCallbar {
		en[k] = v
	}
	for k, v := range deCallbar {
		de[k] = v
	}
}

// enCallbar and deCallbar are the texts of the live-call bar (issue 16).
var enCallbar = map[string]string{
	"callbar.sent":     "Sent DTMF",
	"callbar.pad.dtmf": "A call is connected: the keys send tones (DTMF) to it, and so do the digits typed outside a field.",
}

var deCallbar = map[string]string{
	"callbar.sent":     "Gesendete Töne (DTMF)",
	"callbar.pad.dtmf": "Ein Gespräch ist verbunden: Die Tasten senden ihm Töne (DTMF), ebenso die außerhalb eines Feldes getippten Ziffern.",
}
