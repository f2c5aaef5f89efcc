package store

import "gorm.io/gorm"

// seedEntry is one entry of the default taxonomy: code, kind, severity,
// English and German title and description, trigger phrases.
type seedEntry struct {
	code, kind, severity   string
	en, enDesc, de, deDesc string
	triggers               []string
}

// defaultTaxonomy is written once, by migration 0002. Codes are constant:
// clients match on them. Trigger phrases are matched case-insensitively
// against transcripts; both languages are listed because a call's language is
// not the interface language.
var defaultTaxonomy = []seedEntry{
	{code: "sales", kind: "category", en: "Sales", enDesc: "Questions before buying, offers, orders.",
		de: "Vertrieb", deDesc: "Fragen vor dem Kauf, Angebote, Bestellungen."},
	{code: "support", kind: "category", en: "Support", enDesc: "Help with a product or service already in use.",
		de: "Support", deDesc: "Hilfe zu einem Produkt oder Dienst, der schon genutzt wird."},
	{code: "billing", kind: "category", en: "Billing", enDesc: "Invoices, payments, refunds.",
		de: "Abrechnung", deDesc: "Rechnungen, Zahlungen, Erstattungen."},
	{code: "complaint", kind: "category", en: "Complaint", enDesc: "The caller is unhappy with us.",
		de: "Beschwerde", deDesc: "Der Anrufer ist mit uns unzufrieden."},
	{code: "other", kind: "category", en: "Other", enDesc: "Anything that fits no other category.",
		de: "Sonstiges", deDesc: "Alles, was in keine andere Kategorie passt."},

	{code: "callback", kind: "tag", en: "Call back", enDesc: "Someone has to call back.",
		de: "Rückruf", deDesc: "Jemand muss zurückrufen."},
	{code: "follow-up", kind: "tag", en: "Follow-up", enDesc: "Needs further work after the call.",
		de: "Nachbearbeitung", deDesc: "Nach dem Anruf ist noch etwas zu tun."},
	{code: "vip", kind: "tag", en: "Key customer", enDesc: "A customer of special importance.",
		de: "Schlüsselkunde", deDesc: "Ein besonders wichtiger Kunde."},
	{code: "wrong-number", kind: "tag", en: "Wrong number", enDesc: "The caller meant to reach someone else.",
		de: "Falsch verbunden", deDesc: "Der Anrufer wollte jemand anderen erreichen."},
	{code: "voicemail", kind: "tag", en: "Voicemail", enDesc: "A machine answered.",
		de: "Mailbox", deDesc: "Ein Anrufbeantworter hat angenommen."},

	{code: "cancellation", kind: "red_flag", severity: "high",
		en: "Cancellation", enDesc: "The caller wants to end the contract.",
		de: "Kündigung", deDesc: "Der Anrufer will den Vertrag beenden.",
		triggers: []string{"cancel my contract", "cancel my subscription", "terminate my contract",
			"vertrag kündigen", "kündigen", "kündigung"}},
	{code: "legal-threat", kind: "red_flag", severity: "high",
		en: "Legal threat", enDesc: "The caller mentions a lawyer or legal action.",
		de: "Rechtliche Drohung", deDesc: "Der Anrufer erwähnt einen Anwalt oder rechtliche Schritte.",
		triggers: []string{"lawyer", "attorney", "legal action", "sue you", "court",
			"anwalt", "rechtliche schritte", "verklagen", "gericht"}},
	{code: "data-protection", kind: "red_flag", severity: "high",
		en: "Data protection", enDesc: "The caller raises a privacy or data protection request.",
		de: "Datenschutz", deDesc: "Der Anrufer stellt eine Anfrage oder Beschwerde zum Datenschutz.",
		triggers: []string{"gdpr", "data protection", "delete my data", "dsgvo", "datenschutz", "meine daten löschen"}},
	{code: "escalation", kind: "red_flag", severity: "medium",
		en: "Escalation", enDesc: "The caller asks for a manager or supervisor.",
		de: "Eskalation", deDesc: "Der Anrufer verlangt eine Führungskraft.",
		triggers: []string{"speak to your manager", "supervisor", "your boss",
			"vorgesetzten", "ihren chef", "geschäftsführung"}},
	{code: "angry-caller", kind: "red_flag", severity: "medium",
		en: "Angry caller", enDesc: "The caller is upset or abusive.",
		de: "Verärgerter Anrufer", deDesc: "Der Anrufer ist aufgebracht oder ausfallend.",
		triggers: []string{"unacceptable", "ridiculous", "unverschämt", "inakzeptabel", "frechheit"}},
	{code: "payment-difficulty", kind: "red_flag", severity: "low",
		en: "Payment difficulty", enDesc: "The caller cannot pay on time.",
		de: "Zahlungsschwierigkeit", deDesc: "Der Anrufer kann nicht rechtzeitig zahlen.",
		triggers: []string{"can't pay", "cannot pay", "payment plan", "ratenzahlung", "kann nicht zahlen"}},
}

// seedTaxonomy is migration 0002.
func seedTaxonomy(tx *gorm.DB) error {
	for i, s := range defaultTaxonomy {
		e := TaxonomyEntry{
			Code: s.code, Kind: s.kind, Severity: s.severity, Triggers: s.triggers,
			Titles:       map[string]string{"en": s.en, "de": s.de},
			Descriptions: map[string]string{"en": s.enDesc, "de": s.deDesc},
		}
		if err := insertTaxonomy(tx, e, i+1); err != nil {
			return err
		}
	}
	return nil
}
