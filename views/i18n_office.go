package views

func init() {
	for k, v := range enOffice {
		en[k] = v
	}
	for k, v := range deOffice {
		de[k] = v
	}
}

// enOffice and deOffice are the texts of busy lamps, pickup, presence and
// voicemail (issue 19).
var enOffice = map[string]string{
	"office.lamps":                  "Colleagues",
	"office.lamps.none":             "No watched contacts. Tick \"Watch line and presence\" on a contact.",
	"office.pickup":                 "Pick up",
	"office.pickupname":             "Pick up the call ringing at %s",
	"office.line.idle":              "free",
	"office.line.ringing":           "ringing",
	"office.line.busy":              "busy",
	"office.line.unknown":           "line unknown",
	"office.pres.available":         "available",
	"office.pres.away":              "away",
	"office.pres.busy":              "busy",
	"office.pres.dnd":               "do not disturb",
	"office.pres.offline":           "offline",
	"office.pres.unknown":           "presence unknown",
	"office.mystatus":               "My status",
	"office.vm":                     "Voicemail",
	"office.vm.count":               "%s new, %s old",
	"office.vm.unknown":             "not known yet",
	"office.vm.call":                "Call voicemail",
	"office.pickup.done":            "Picked up.",
	"contacts.watch":                "Watch line and presence",
	"contacts.watch.hint":           "Shows whether this colleague's line is free, ringing or busy and their presence, through the PBX of the contact's line (or the selected one); while it rings you can pick the call up.",
	"account.pickup_prefix":         "Pickup prefix",
	"account.pickup_prefix.hint":    "Dialled before a colleague's number to pick up a call ringing there (for example *8). Empty: the call is taken over with Replaces from what the PBX reports.",
	"account.voicemail_number":      "Voicemail number",
	"account.voicemail_number.hint": "What \"Call voicemail\" dials (for example *97).",
	"account.mwi":                   "Show waiting voicemail",
	"account.mwi.hint":              "Subscribes to this line's mailbox (message-summary) and shows the new and old messages.",
	"account.presence":              "Presence",
	"account.presence.hint":         "Publishes your status (available, away, busy during calls, do not disturb) and shows watched contacts' status.",
	"err.pickup_prefix":             "Up to 8 of the keys 0-9, * and #.",
	"err.voicemail_number":          "A number or SIP address without spaces (up to 64 characters).",
	"err.notringing":                "That line is not ringing (any more).",
	"err.novoicemail":               "Set a voicemail number for this line first (Settings, Accounts).",
}

var deOffice = map[string]string{
	"office.lamps":                  "Kollegen",
	"office.lamps.none":             "Keine beobachteten Kontakte. Setzen Sie bei einem Kontakt „Leitung und Präsenz beobachten“.",
	"office.pickup":                 "Heranholen",
	"office.pickupname":             "Den Anruf bei %s heranholen",
	"office.line.idle":              "frei",
	"office.line.ringing":           "klingelt",
	"office.line.busy":              "besetzt",
	"office.line.unknown":           "Leitung unbekannt",
	"office.pres.available":         "verfügbar",
	"office.pres.away":              "abwesend",
	"office.pres.busy":              "beschäftigt",
	"office.pres.dnd":               "nicht stören",
	"office.pres.offline":           "offline",
	"office.pres.unknown":           "Präsenz unbekannt",
	"office.mystatus":               "Mein Status",
	"office.vm":                     "Mailbox",
	"office.vm.count":               "%s neu, %s alt",
	"office.vm.unknown":             "noch nicht bekannt",
	"office.vm.call":                "Mailbox anrufen",
	"office.pickup.done":            "Herangeholt.",
	"contacts.watch":                "Leitung und Präsenz beobachten",
	"contacts.watch.hint":           "Zeigt über die Telefonanlage der Leitung des Kontakts (oder der ausgewählten), ob die Leitung frei ist, klingelt oder besetzt ist, und die Präsenz; solange es klingelt, können Sie den Anruf heranholen.",
	"account.pickup_prefix":         "Präfix zum Heranholen",
	"account.pickup_prefix.hint":    "Wird vor der Nummer eines Kollegen gewählt, um einen dort klingelnden Anruf heranzuholen (zum Beispiel *8). Leer: Der Anruf wird mit Replaces aus den Angaben der Telefonanlage übernommen.",
	"account.voicemail_number":      "Mailbox-Nummer",
	"account.voicemail_number.hint": "Was „Mailbox anrufen“ wählt (zum Beispiel *97).",
	"account.mwi":                   "Wartende Nachrichten anzeigen",
	"account.mwi.hint":              "Abonniert die Mailbox dieser Leitung (message-summary) und zeigt neue und alte Nachrichten.",
	"account.presence":              "Präsenz",
	"account.presence.hint":         "Veröffentlicht Ihren Status (verfügbar, abwesend, beschäftigt während Gesprächen, nicht stören) und zeigt den Status beobachteter Kontakte.",
	"err.pickup_prefix":             "Bis zu 8 der Tasten 0-9, * und #.",
	"err.voicemail_number":          "Eine Nummer oder SIP-Adresse ohne Leerzeichen (bis 64 Zeichen).",
	"err.notringing":                "Diese Leitung klingelt nicht (mehr).",
	"err.novoicemail":               "Legen Sie zuerst eine Mailbox-Nummer für diese Leitung fest (Einstellungen, Konten).",
}
