package views

// Texts of the recording page's transcript (branch audit-transcripts): why
// a transcript is not being made or could not be made, and "Try again".
var transcriptsEN = map[string]string{
	"rec.tr.norecogniser":       "No transcript is being made: no recogniser is set. Choose one in Settings, Recording and transcription.",
	"rec.tr.norecogniser.retry": "To make it again, choose a recogniser in Settings, Recording and transcription.",
	"rec.tr.diskfull":           "The disk is full. Free some space and try again.",
	"rec.tr.reason":             "Reason:",
	"rec.tr.retry":              "Try again",
}

var transcriptsDE = map[string]string{
	"rec.tr.norecogniser":       "Es wird keine Abschrift erstellt: Keine Erkennung ist eingestellt. Wählen Sie eine unter Einstellungen, Aufnahme und Transkription.",
	"rec.tr.norecogniser.retry": "Um sie erneut zu erstellen, wählen Sie eine Erkennung unter Einstellungen, Aufnahme und Transkription.",
	"rec.tr.diskfull":           "Der Datenträger ist voll. Bitte Platz schaffen und erneut versuchen.",
	"rec.tr.reason":             "Grund:",
	"rec.tr.retry":              "Erneut versuchen",
}

func init() {
	for k, v := range transcriptsEN {
		en[k] = v
	}
	for k, v := range transcriptsDE {
		de[k] = v
	}
}
