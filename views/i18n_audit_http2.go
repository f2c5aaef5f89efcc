package views

// Texts of audit-http2, kept apart from the big dictionaries; init adds
// them to both languages.
var auditHTTP2EN = map[string]string{
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
}

var auditHTTP2DE = map[string]string{
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
}

func init() {
	for k, v := range auditHTTP2EN {
		en[k] = v
	}
	for k, v := range auditHTTP2DE {
		de[k] = v
	}
}
