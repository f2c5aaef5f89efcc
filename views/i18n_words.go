package views

// Strings of issue 16 items 3-6 (branch words): why a call ended, page action
// errors in words, the dial field's suggestions, missed calls, recent calls,
// the compact history and sip.default_region.
func init() {
	for k, v := range map[string][2]string{
		// Why a call ended (views/outcome.go).
		"why.open":          {"In progress", "Läuft"},
		"why.busy":          {"Busy", "Besetzt"},
		"why.notfound":      {"No such number", "Rufnummer existiert nicht"},
		"why.noanswer":      {"No answer", "Keine Antwort"},
		"why.declined":      {"Declined", "Abgelehnt"},
		"why.declinedbyyou": {"Declined by you", "Von Ihnen abgelehnt"},
		"why.unreachable":   {"Network unreachable", "Netzwerk nicht erreichbar"},
		"why.local":         {"Ended by you", "Von Ihnen beendet"},
		"why.remote":        {"Ended by the other party", "Vom Gegenüber beendet"},
		"why.missed":        {"Missed", "Verpasst"},
		"why.transferred":   {"Transferred", "Weitervermittelt"},
		"why.interrupted":   {"Interrupted (the phone stopped)", "Unterbrochen (das Telefon wurde beendet)"},
		"why.notencrypted":  {"Not encrypted: refused", "Nicht verschlüsselt: abgewiesen"},
		"why.mediatimeout":  {"Ended: no sound came from the other side any more (the line was lost)", "Beendet: von der Gegenseite kam kein Ton mehr (Verbindung verloren)"},
		"why.failed":        {"Call failed", "Anruf fehlgeschlagen"},
		"why.answered":      {"Answered", "Angenommen"},
		"ended.title":       {"Call ended", "Anruf beendet"},
		"ended.dismiss":     {"Dismiss", "Ausblenden"},
		"ended.callagain":   {"Call again", "Erneut anrufen"},
		"ended.label":       {"Last call: %s", "Letzter Anruf: %s"},
		// Page action errors (server/web/acterr.go).
		"acterr.nocall":      {"That call has ended.", "Dieser Anruf ist schon beendet."},
		"acterr.nonumber":    {"Enter a number to call.", "Bitte eine Rufnummer eingeben."},
		"acterr.nodigits":    {"No keys to send.", "Keine Tasten zum Senden."},
		"acterr.baddigit":    {"Only 0-9, *, # and A-D can be sent as tones.", "Als Töne lassen sich nur 0-9, *, # und A-D senden."},
		"acterr.notarget":    {"Enter where to transfer the call.", "Bitte angeben, wohin weitervermittelt werden soll."},
		"acterr.accountgone": {"The line this call is on is no longer set up.", "Die Leitung dieses Anrufs ist nicht mehr eingerichtet."},
		"acterr.noaccount":   {"No line to call from: set up an account in Settings.", "Keine Leitung zum Anrufen: Richten Sie in den Einstellungen ein Konto ein."},
		"acterr.state":       {"That is not possible in the call's state.", "Das ist im jetzigen Zustand des Anrufs nicht möglich."},
		"acterr.transfer":    {"The transfer failed: the other side or the target refused it.", "Die Weitervermittlung ist fehlgeschlagen: Gegenüber oder Ziel hat abgelehnt."},
		"acterr.notserving":  {"The phone is not running yet.", "Das Telefon läuft noch nicht."},
		"acterr.nolistener":  {"The line's connection (transport) could not be opened.", "Die Verbindung (Transport) der Leitung konnte nicht geöffnet werden."},
		"acterr.holdfirst":   {"The call in progress could not be put on hold.", "Der laufende Anruf konnte nicht gehalten werden."},
		"acterr.notringing":  {"That line is not ringing.", "Diese Leitung klingelt nicht."},
		"acterr.novoicemail": {"This line has no voicemail number.", "Diese Leitung hat keine Mailbox-Nummer."},
		"acterr.sips":        {"A sips: address needs a line with transport TLS.", "Eine sips:-Adresse braucht eine Leitung mit Transport TLS."},
		"acterr.timeout":     {"The phone did not answer in time. Try again.", "Das Telefon hat nicht rechtzeitig geantwortet. Bitte erneut versuchen."},
		"acterr.other":       {"That did not work. The log says why.", "Das hat nicht geklappt. Das Protokoll nennt den Grund."},
		// The dial field.
		"dial.suggest": {"Contacts and recent numbers", "Kontakte und letzte Nummern"},
		// Missed and recent calls.
		"missed.badge":    {"%d missed", "%d verpasst"},
		"missed.label":    {"%d missed calls since you last looked at History", "%d verpasste Anrufe seit dem letzten Blick in den Verlauf"},
		"recent.title":    {"Recent calls", "Letzte Anrufe"},
		"recent.none":     {"No calls yet.", "Noch keine Anrufe."},
		"recent.missed":   {"Missed calls", "Verpasste Anrufe"},
		"recent.callback": {"Call back %s", "%s zurückrufen"},
		"recent.all":      {"All calls in History", "Alle Anrufe im Verlauf"},
		// The compact history.
		"history.party":     {"Party", "Gesprächspartner"},
		"history.time":      {"Time", "Zeit"},
		"history.length":    {"Length", "Dauer"},
		"history.outcome":   {"Outcome", "Ergebnis"},
		"history.more":      {"Details, tags and note", "Details, Schlagwörter und Notiz"},
		"history.showchart": {"Calls per day (chart)", "Anrufe pro Tag (Diagramm)"},
		// Settings: the region numbers are read in.
		"settings.numbers":        {"Numbers", "Nummern"},
		"sip.default_region":      {"Default region", "Standardregion"},
		"sip.default_region.hint": {"Two letters like DE or US: numbers without a country code (030 1234567) are read as numbers of this region, so they match contacts saved as +49 30 1234567. Empty: only numbers with a country code are matched across formats.", "Zwei Buchstaben wie DE oder US: Nummern ohne Landesvorwahl (030 1234567) gelten als Nummern dieser Region und passen so zu Kontakten, die als +49 30 1234567 gespeichert sind. Leer: nur Nummern mit Landesvorwahl werden formatübergreifend verglichen."},
		// Settings: how calls are taken and given up.
		"settings.handling":          {"Call handling", "Anrufbehandlung"},
		"sip.auto_answer":            {"Answer incoming calls at once", "Ankommende Anrufe sofort annehmen"},
		"sip.allow_call_info_answer": {"Answer at once when the PBX asks for it (intercom, paging)", "Sofort annehmen, wenn die Telefonanlage darum bittet (Gegensprechen, Durchsage)"},
		"sip.accept_calls_from":      {"Who may ring this phone", "Wer dieses Telefon anrufen darf"},
		"accept.servers":             {"Only the servers of my accounts", "Nur die Server meiner Konten"},
		"accept.anyone":              {"Anyone on the network", "Jeder im Netz"},
		"sip.accept_calls_from.hint": {"Anyone: other phones may call this one directly, without a PBX. Only the servers: calls from anywhere else are turned away.", "Jeder: andere Telefone dürfen dieses direkt anrufen, ohne Telefonanlage. Nur die Server: Anrufe von anderswo werden abgewiesen."},
		"sip.ring_timeout_s":         {"Ring for at most (seconds)", "Höchstens so lange klingeln (Sekunden)"},
		"sip.ring_timeout_s.hint":    {"Then the call ends as missed and the caller is told that nobody answered.", "Danach endet der Anruf als verpasst, und der Anrufer erfährt, dass niemand abgenommen hat."},
		"sip.media_timeout_s":        {"Hang up after silence from the other side (seconds)", "Auflegen nach Stille der Gegenseite (Sekunden)"},
		"sip.media_timeout_s.hint":   {"When nothing at all comes from the other side for this long and nobody holds the call, the line is dead and the call ends. 0: never, for a PBX that sends nothing while the other side is quiet.", "Kommt so lange gar nichts von der Gegenseite und hält niemand das Gespräch, ist die Leitung tot und der Anruf endet. 0: nie, für eine Telefonanlage, die nichts sendet, während die Gegenseite schweigt."},
		"err.region":                 {"must be a region code like DE or US, got %q", "muss ein Regionscode wie DE oder US sein, nicht %q"},
	} {
		en[k], de[k] = v[0], v[1]
	}
}
