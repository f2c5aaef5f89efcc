package views

// Strings of the page's link to the phone (static/src/link.ts): what the
// page says when the phone behind it stopped, was started again (the
// page's session is gone with the old run), or answered an action with an
// error the page has no place for; and the refusals of a body too large.
func init() {
	for k, v := range map[string][2]string{
		"link.down":     {"The phone is not running: nothing you do on this page happens until it is back. Start the phone again.", "Das Telefon läuft nicht: Was Sie auf dieser Seite tun, geschieht erst, wenn es wieder läuft. Starten Sie das Telefon erneut."},
		"link.session":  {"This page is no longer connected to the phone (it was started again, or the page was left unused too long). Use the page the phone opened, or the link it printed when it started.", "Diese Seite ist nicht mehr mit dem Telefon verbunden (es wurde neu gestartet, oder die Seite war zu lange unbenutzt). Nutzen Sie die Seite, die das Telefon geöffnet hat, oder den Link, den es beim Start ausgegeben hat."},
		"link.failed":   {"That did not work (the phone answered %d). Reload the page and try again.", "Das hat nicht geklappt (das Telefon antwortete %d). Laden Sie die Seite neu und versuchen Sie es noch einmal."},
		"err.toolarge":  {"That was too large for the phone: nothing was saved.", "Das war zu groß für das Telefon: Nichts wurde gespeichert."},
		"import.toobig": {"The file is larger than %d MB: nothing was imported. Split it into smaller files.", "Die Datei ist größer als %d MB: Nichts wurde importiert. Teilen Sie sie in kleinere Dateien auf."},
	} {
		en[k], de[k] = v[0], v[1]
	}
}
