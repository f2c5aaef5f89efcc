package views

import (
	"regexp"
	"strings"
)

// storeMsgsDE are the settings store's checks (store/settings_validate.go,
// settings_shape.go) in German; the store speaks English because
// settings.json, the log and the API's errors do. The pages show them in
// their language (issue 16 item 7).
var storeMsgsDE = []struct {
	re *regexp.Regexp
	de string
}{
	{regexp.MustCompile(`^must be (\d+)-65535, got (.+)$`), "muss zwischen $1 und 65535 liegen, nicht $2"},
	{regexp.MustCompile(`^must be one of (.+), got (.+)$`), "muss eines von $1 sein, nicht $2"},
	{regexp.MustCompile(`^(.+) is listed twice$`), "$1 steht doppelt in der Liste"},
	{regexp.MustCompile(`^must be 0-100, got (.+)$`), "muss zwischen 0 und 100 liegen, nicht $1"},
	{regexp.MustCompile(`^must be set$`), "muss ausgefüllt sein"},
	{regexp.MustCompile(`^must be an http:// or https:// address, got (.+)$`), "muss eine http://- oder https://-Adresse sein, nicht $1"},
	{regexp.MustCompile(`^must differ from ui.port \((\d+)\)$`), "muss sich von ui.port ($1) unterscheiden"},
	{regexp.MustCompile(`^must be an origin like (\S+), got (.+)$`), "muss ein Ursprung wie $1 sein, nicht $2"},
	{regexp.MustCompile(`^must be an HTTP header name, got (.+)$`), "muss ein HTTP-Headername sein, nicht $1"},
	{regexp.MustCompile(`^must be host:port, got (.+)$`), "muss die Form Host:Port haben, nicht $1"},
	{regexp.MustCompile(`^port must be 0-65535, got (.+)$`), "der Port muss zwischen 0 und 65535 liegen, nicht $1"},
	{regexp.MustCompile(`^bad host (.+)$`), "ungültiger Host $1"},
	{regexp.MustCompile(`^must be at least sip.rtp_port_min\+3 \((\d+)\), got (.+)$`), "muss mindestens sip.rtp_port_min+3 ($1) sein, nicht $2"},
	{regexp.MustCompile(`^must be 1-3600 seconds, got (.+)$`), "muss zwischen 1 und 3600 Sekunden liegen, nicht $1"},
	{regexp.MustCompile(`^must be 0 \(never\) or 5-3600 seconds, got (.+)$`), "muss 0 (nie) oder zwischen 5 und 3600 Sekunden liegen, nicht $1"},
	{regexp.MustCompile(`^no account with id (.+)$`), "kein Konto mit der Kennung $1"},
	{regexp.MustCompile(`^must list at least one of (.+)$`), "muss mindestens einen von $1 nennen"},
	{regexp.MustCompile(`^(.+) is used by another account$`), "$1 gehört schon einem anderen Konto"},
	{regexp.MustCompile(`^must be 30-86400 \(or 0 for (\d+)\), got (.+)$`), "muss zwischen 30 und 86400 liegen (oder 0 für $1), nicht $2"},
	{regexp.MustCompile(`^must be set for an enabled account$`), "muss für ein aktives Konto ausgefüllt sein"},
	{regexp.MustCompile(`^must be a host name or address, got (.+)$`), "muss ein Hostname oder eine Adresse sein, nicht $1"},
	{regexp.MustCompile(`^must be up to 8 of the keys 0-9 \* #, got (.+)$`), "höchstens 8 der Tasten 0-9 * #, nicht $1"},
	{regexp.MustCompile(`^must be a number or SIP address without spaces \(up to 64 characters\), got (.+)$`), "muss eine Nummer oder SIP-Adresse ohne Leerzeichen sein (bis 64 Zeichen), nicht $1"},
	{regexp.MustCompile(`^(.+) is already used by (.+)$`), "$1 wird schon von $2 verwendet"},
	{regexp.MustCompile(`^unknown key$`), "unbekannter Schlüssel"},
	{regexp.MustCompile(`^must be a whole number, got (.+)$`), "muss eine ganze Zahl sein, nicht $1"},
	{regexp.MustCompile(`^must be true or false, got (.+)$`), "muss wahr oder falsch sein, nicht $1"},
	{regexp.MustCompile(`^must be a string, got (.+)$`), "muss ein Text sein, nicht $1"},
	{regexp.MustCompile(`^must be a number, got (.+)$`), "muss eine Zahl sein, nicht $1"},
	{regexp.MustCompile(`^must be a list, got (.+)$`), "muss eine Liste sein, nicht $1"},
	{regexp.MustCompile(`^must be an object, got (.+)$`), "muss ein Objekt sein, nicht $1"},
}

// StoreMsg is a message of the settings store in the page's language. A
// message it does not know (or one already in words of the page) stays as
// it is; a "key: message" keeps its key.
func StoreMsg(l L, msg string) string {
	if l.Code() != "de" {
		return msg
	}
	prefix := ""
	if i := strings.Index(msg, ": "); i > 0 && !strings.Contains(msg[:i], " ") {
		prefix, msg = msg[:i+2], msg[i+2:]
	}
	for _, m := range storeMsgsDE {
		if m.re.MatchString(msg) {
			return prefix + m.re.ReplaceAllString(msg, m.de)
		}
	}
	for _, p := range phrasesDE {
		msg = strings.ReplaceAll(msg, p[0], p[1])
	}
	return prefix + msg
}

// phrasesDE are the phone's error sentences (sipua, store, webhook, web),
// English in logs and the API, German on a German page; a wrapped error
// ("hold: not possible in the call's state") gets each known part.
var phrasesDE = [][2]string{
	{"no call with that id", "kein Gespräch mit dieser Kennung"},
	{"a call needs a number", "ein Anruf braucht eine Nummer"},
	{"no digits to send", "keine Ziffern zum Senden"},
	{"a transfer needs a target", "eine Weitervermittlung braucht ein Ziel"},
	{"the account this call is on is no longer set up", "das Konto dieses Gesprächs ist nicht mehr eingerichtet"},
	{"no account to call from", "kein Konto zum Anrufen"},
	{"not a DTMF digit", "keine Wähltaste"},
	{"not possible in the call's state", "im Zustand des Gesprächs nicht möglich"},
	{"transfer failed", "Weitervermittlung fehlgeschlagen"},
	{"registration failed", "Anmeldung fehlgeschlagen"},
	{"phone is not running", "das Telefon läuft nicht"},
	{"no SIP listener for the account's transport", "kein SIP-Empfang für das Transportprotokoll des Kontos"},
	{"the contact's line is not ringing", "bei diesem Kontakt klingelt es nicht"},
	{"the account has no voicemail number", "das Konto hat keine Mailbox-Nummer"},
	{"a sips: address needs an account with transport tls", "eine sips:-Adresse braucht ein Konto mit Transport tls"},
	{"the call in progress could not be put on hold", "das laufende Gespräch konnte nicht gehalten werden"},
	{"the number has characters a phone number cannot have", "die Nummer enthält Zeichen, die eine Telefonnummer nicht haben kann"},
	{"unknown or retired taxonomy code", "unbekannter oder stillgelegter Code"},
	{"already exists", "gibt es schon"},
	{"invalid value", "ungültiger Wert"},
	{"not found", "nicht gefunden"},
	{"keyring did not answer within 3 s", "der Schlüsselbund antwortete nicht innerhalb von 3 s"},
	{"no webhook address is configured", "keine Webhook-Adresse eingestellt"},
	{"the webhook address is not a valid http or https URL", "die Webhook-Adresse ist keine gültige http- oder https-Adresse"},
	{"webhooks are switched off", "Webhooks sind ausgeschaltet"},
	{"webhooks are not available", "Webhooks sind nicht verfügbar"},
	{"webhook queue is full", "die Webhook-Warteschlange ist voll"},
	{"webhook not delivered", "Webhook nicht zugestellt"},
	{"must be light, dark or system", "muss hell, dunkel oder System sein"},
	{"must be 0-100", "muss zwischen 0 und 100 liegen"},
	{"unknown setting", "unbekannte Einstellung"},
	{"bad request", "ungültige Anfrage"},
	{"no such action", "unbekannte Aktion"},
	{"bad settings", "ungültige Einstellungen"},
}

// LocalErrors puts every message of errs into the page's language.
func LocalErrors(l L, errs Errors) {
	for k, v := range errs {
		errs[k] = StoreMsg(l, v)
	}
}
