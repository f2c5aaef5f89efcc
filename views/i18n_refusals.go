package views

// Texts that say why a change was refused or left undone (a call, contact
// or tag gone, a full disk, a keyring that refused, the API's port taken,
// a file that cannot be imported), so the page never shows a store's or
// the keyring's raw error; init adds them to both languages.
var refusalsEN = map[string]string{
	"api.down.taken":        "The local API is switched on but does not answer: another program uses port %d. Choose another port, or end that program; the phone tries the port again every few seconds.",
	"api.down.failed":       "The local API is switched on but cannot listen on port %d. Choose another port (ports below 1024 need special rights); the phone tries again every few seconds.",
	"account.password_kept": "The account's password could not be removed from the keyring (it is locked, or the disk is full), so the account is kept. Try again.",
	"history.gone":          "That call is no longer in the history; nothing was saved.",
	"taxonomy.gone":         "There is no category, tag or red flag with that code.",
	"store.unknowncode":     "A chosen tag does not exist or has been retired; nothing was saved.",
	"store.exists":          "That code is already used; choose another.",
	"contact.gone":          "That contact no longer exists; nothing was saved.",
	"import.nocontacts":     "No contacts found in the file: each needs a number. Nothing was imported.",
	"import.toolong":        "A line of the file is longer than %d MiB. Nothing was imported.",
	"import.csvline":        "The CSV file cannot be read at line %d. Nothing was imported.",
	"import.unreadable":     "The file cannot be read as vCard or CSV. Nothing was imported.",
	"webhook.resend.gone":   "That delivery is no longer in the log; nothing was sent again.",
	"webhook.resend.off":    "Webhooks are switched off; nothing was sent again. Switch them on to send a delivery again.",
	"webhook.resend.full":   "The webhook queue is full; nothing was sent again. Try again once deliveries have gone out.",
	"settings.diskfull":     "The disk is full: nothing was saved, the settings before stand. Free some space and save again.",
	"import.notsaved":       "%d of the file's %d contacts could not be saved and were not imported.",
	"import.notsaved.disk":  "%d of the file's %d contacts could not be saved and were not imported: the disk is full.",
}

var refusalsDE = map[string]string{
	"api.down.taken":        "Die lokale Steuerung ist an, antwortet aber nicht: Ein anderes Programm verwendet Port %d. Wählen Sie einen anderen Port oder beenden Sie das Programm; das Telefon versucht es alle paar Sekunden wieder.",
	"api.down.failed":       "Die lokale Steuerung ist an, kann aber nicht auf Port %d empfangen. Wählen Sie einen anderen Port (Ports unter 1024 brauchen besondere Rechte); das Telefon versucht es alle paar Sekunden wieder.",
	"account.password_kept": "Das Passwort des Kontos ließ sich nicht aus dem Schlüsselbund entfernen (er ist gesperrt, oder der Datenträger ist voll), darum bleibt das Konto. Bitte noch einmal versuchen.",
	"history.gone":          "Dieser Anruf steht nicht mehr im Verlauf; nichts wurde gespeichert.",
	"taxonomy.gone":         "Es gibt keine Kategorie, kein Schlagwort und kein Warnsignal mit diesem Code.",
	"store.unknowncode":     "Ein gewähltes Schlagwort gibt es nicht oder nicht mehr; nichts wurde gespeichert.",
	"store.exists":          "Dieser Code ist schon vergeben; bitte einen anderen wählen.",
	"contact.gone":          "Diesen Kontakt gibt es nicht mehr; nichts wurde gespeichert.",
	"import.nocontacts":     "Keine Kontakte in der Datei gefunden: Jeder braucht eine Nummer. Nichts wurde importiert.",
	"import.toolong":        "Eine Zeile der Datei ist länger als %d MiB. Nichts wurde importiert.",
	"import.csvline":        "Die CSV-Datei lässt sich in Zeile %d nicht lesen. Nichts wurde importiert.",
	"import.unreadable":     "Die Datei lässt sich weder als vCard noch als CSV lesen. Nichts wurde importiert.",
	"webhook.resend.gone":   "Diese Zustellung steht nicht mehr im Protokoll; nichts wurde erneut gesendet.",
	"webhook.resend.off":    "Webhooks sind ausgeschaltet; nichts wurde erneut gesendet. Schalten Sie sie ein, um eine Zustellung erneut zu senden.",
	"webhook.resend.full":   "Die Webhook-Warteschlange ist voll; nichts wurde erneut gesendet. Bitte noch einmal versuchen, sobald Zustellungen hinausgegangen sind.",
	"settings.diskfull":     "Der Datenträger ist voll: Nichts wurde gespeichert, die bisherigen Einstellungen gelten weiter. Bitte Platz schaffen und erneut speichern.",
	"import.notsaved":       "%d der %d Kontakte der Datei ließen sich nicht speichern und wurden nicht importiert.",
	"import.notsaved.disk":  "%d der %d Kontakte der Datei ließen sich nicht speichern und wurden nicht importiert: Der Datenträger ist voll.",
}

func init() {
	for k, v := range refusalsEN {
		en[k] = v
	}
	for k, v := range refusalsDE {
		de[k] = v
	}
}
