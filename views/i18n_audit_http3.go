package views

// Texts of audit-http3, kept apart from the big dictionaries; init adds
// them to both languages.
var auditHTTP3EN = map[string]string{
	"webhook.resend.gone":  "That delivery is no longer in the log; nothing was sent again.",
	"webhook.resend.off":   "Webhooks are switched off; nothing was sent again. Switch them on to send a delivery again.",
	"webhook.resend.full":  "The webhook queue is full; nothing was sent again. Try again once deliveries have gone out.",
	"settings.diskfull":    "The disk is full: nothing was saved, the settings before stand. Free some space and save again.",
	"import.notsaved":      "%d of the file's %d contacts could not be saved and were not imported.",
	"import.notsaved.disk": "%d of the file's %d contacts could not be saved and were not imported: the disk is full.",
}

var auditHTTP3DE = map[string]string{
	"webhook.resend.gone":  "Diese Zustellung steht nicht mehr im Protokoll; nichts wurde erneut gesendet.",
	"webhook.resend.off":   "Webhooks sind ausgeschaltet; nichts wurde erneut gesendet. Schalten Sie sie ein, um eine Zustellung erneut zu senden.",
	"webhook.resend.full":  "Die Webhook-Warteschlange ist voll; nichts wurde erneut gesendet. Bitte noch einmal versuchen, sobald Zustellungen hinausgegangen sind.",
	"settings.diskfull":    "Der Datenträger ist voll: Nichts wurde gespeichert, die bisherigen Einstellungen gelten weiter. Bitte Platz schaffen und erneut speichern.",
	"import.notsaved":      "%d der %d Kontakte der Datei ließen sich nicht speichern und wurden nicht importiert.",
	"import.notsaved.disk": "%d der %d Kontakte der Datei ließen sich nicht speichern und wurden nicht importiert: Der Datenträger ist voll.",
}

func init() {
	for k, v := range auditHTTP3EN {
		en[k] = v
	}
	for k, v := range auditHTTP3DE {
		de[k] = v
	}
}
