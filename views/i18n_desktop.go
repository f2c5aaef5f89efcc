package views

func init() {
	for k, v := range enDesktop {
		en[k] = v
	}
	for k, v := range deDesktop {
		de[k] = v
	}
}

// enDesktop is the English text of coexistence notices (a taken SIP port,
// a listener that cannot open, a full RTP range) and desktop integrations.
var enDesktop = map[string]string{
	"listen.moved":  "Port %s for SIP over %s is taken by another program (another phone or a PBX): this phone listens on %s instead and registers with that port.",
	"listen.failed": "SIP over %s cannot listen on %s (%s): accounts using %s cannot register.",
	"rtp.outside":   "All RTP ports %d-%d were taken: %d call(s) used ports outside that range. A firewall opened only for the range may block their audio.",

	"desktop.title":     "Desktop integration on this computer",
	"desktop.links":     "tel:, sip: and callto: links open this phone",
	"desktop.login":     "The phone starts when you log in",
	"desktop.yes":       "in place (%s)",
	"desktop.no":        "not set up",
	"desktop.elsewhere": "set up for another program or copy: %s",
	"desktop.uninstall": "Remove both with: softphone uninstall-desktop",
}

// deDesktop is the German text of the same.
var deDesktop = map[string]string{
	"listen.moved":  "Port %s für SIP über %s ist von einem anderen Programm belegt (einem anderen Telefon oder einer Telefonanlage): Dieses Telefon lauscht stattdessen auf %s und meldet sich mit diesem Port an.",
	"listen.failed": "SIP über %s kann nicht auf %s lauschen (%s): Konten mit %s können sich nicht anmelden.",
	"rtp.outside":   "Alle RTP-Ports %d-%d waren belegt: %d Gespräch(e) nutzten Ports außerhalb dieses Bereichs. Eine nur für den Bereich geöffnete Firewall kann deren Ton blockieren.",

	"desktop.title":     "Desktop-Einbindung auf diesem Computer",
	"desktop.links":     "tel:-, sip:- und callto:-Links öffnen dieses Telefon",
	"desktop.login":     "Das Telefon startet bei der Anmeldung",
	"desktop.yes":       "eingerichtet (%s)",
	"desktop.no":        "nicht eingerichtet",
	"desktop.elsewhere": "für ein anderes Programm oder eine andere Kopie eingerichtet: %s",
	"desktop.uninstall": "Beides entfernen mit: softphone uninstall-desktop",
}
