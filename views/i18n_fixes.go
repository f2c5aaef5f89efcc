package views

// Strings of the "fixes" branch: refusals of hostile form input and of the
// dial field's suggestions, and the welcome card on a full disk.
func init() {
	for k, v := range enFixes {
		en[k] = v
	}
	for k, v := range deFixes {
		de[k] = v
	}
}

var enFixes = map[string]string{
	"err.toolong":       "Too long: at most %d bytes.",
	"err.badtext":       "Holds characters that cannot be used here (control characters or broken text).",
	"err.suggest.bad":   "Nothing looked up: the text is too long or holds characters a number cannot have.",
	"err.suggest.cross": "Nothing looked up: the request did not come from this phone's own page.",
	"welcome.diskfull":  "The disk is full: the account was not saved, and nothing saved before was changed. Free some space, type the password again and press Connect; the other fields are kept.",
}

var deFixes = map[string]string{
	"err.toolong":       "Zu lang: höchstens %d Bytes.",
	"err.badtext":       "Enthält Zeichen, die hier nicht stehen dürfen (Steuerzeichen oder fehlerhafter Text).",
	"err.suggest.bad":   "Nichts nachgeschlagen: Der Text ist zu lang oder enthält Zeichen, die eine Nummer nicht haben kann.",
	"err.suggest.cross": "Nichts nachgeschlagen: Die Anfrage kam nicht von der eigenen Seite dieses Telefons.",
	"welcome.diskfull":  "Der Datenträger ist voll: Das Konto wurde nicht gespeichert, und nichts bisher Gespeichertes wurde verändert. Bitte Platz schaffen, das Passwort erneut eingeben und „Verbinden“ drücken; die übrigen Felder bleiben erhalten.",
}
