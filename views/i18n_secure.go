package views

func init() {
	for k, v := range enSecure {
		en[k] = v
	}
	for k, v := range deSecure {
		de[k] = v
	}
}

// enSecure and deSecure are the texts of media encryption, TLS and STUN
// (issue 18): the account form and the lock on a call card.
var enSecure = map[string]string{
	"account.media_encryption":               "Media encryption",
	"account.media_encryption.none":          "None (plain RTP)",
	"account.media_encryption.sdes":          "SRTP, keys in SDP (SDES)",
	"account.media_encryption.dtls":          "SRTP, keys by DTLS (DTLS-SRTP)",
	"account.media_encryption.hint":          "Encrypts the sound of calls on this line (SRTP). SDES is what most PBXs offer and needs TLS to keep the keys secret; DTLS-SRTP agrees on keys in the media path. Encrypted calls from the PBX are accepted either way.",
	"account.media_encryption_required":      "Only encrypted calls",
	"account.media_encryption_required.hint": "Calls that cannot be encrypted are refused instead of going out in clear: an incoming one is answered 488, an outgoing one ends with the reason \"not-encrypted\".",
	"account.stun_server":                    "STUN server",
	"account.stun_server.hint":               "host:port, e.g. stun.example.org:3478. Behind a home router the phone asks it for its public address and puts that in Contact and SDP. Empty: none.",
	"err.encryption.required":                "Choose SDES or DTLS-SRTP to require encryption.",
	"err.hostport":                           "Enter host:port, e.g. stun.example.org:3478.",
	"call.lock.closed":                       "Encrypted: signalling (TLS) and sound (SRTP)",
	"call.lock.media":                        "Sound encrypted (SRTP), signalling not (no TLS)",
	"call.lock.signalling":                   "Signalling encrypted (TLS), sound not (no SRTP)",
}

var deSecure = map[string]string{
	"account.media_encryption":               "Medienverschlüsselung",
	"account.media_encryption.none":          "Keine (einfaches RTP)",
	"account.media_encryption.sdes":          "SRTP, Schlüssel im SDP (SDES)",
	"account.media_encryption.dtls":          "SRTP, Schlüssel per DTLS (DTLS-SRTP)",
	"account.media_encryption.hint":          "Verschlüsselt den Ton der Gespräche dieser Leitung (SRTP). SDES bieten die meisten Telefonanlagen an; es braucht TLS, damit die Schlüssel geheim bleiben. DTLS-SRTP handelt die Schlüssel im Medienweg aus. Verschlüsselte Anrufe der Anlage werden in jedem Fall angenommen.",
	"account.media_encryption_required":      "Nur verschlüsselte Gespräche",
	"account.media_encryption_required.hint": "Gespräche, die nicht verschlüsselt werden können, werden abgelehnt statt unverschlüsselt geführt: ein eingehender Anruf mit 488, ein ausgehender endet mit dem Grund „not-encrypted“.",
	"account.stun_server":                    "STUN-Server",
	"account.stun_server.hint":               "Host:Port, z. B. stun.example.org:3478. Hinter einem Router erfragt das Telefon dort seine öffentliche Adresse und trägt sie in Contact und SDP ein. Leer: keiner.",
	"err.encryption.required":                "Für Pflicht-Verschlüsselung SDES oder DTLS-SRTP wählen.",
	"err.hostport":                           "Host:Port eingeben, z. B. stun.example.org:3478.",
	"call.lock.closed":                       "Verschlüsselt: Signalisierung (TLS) und Ton (SRTP)",
	"call.lock.media":                        "Ton verschlüsselt (SRTP), Signalisierung nicht (kein TLS)",
	"call.lock.signalling":                   "Signalisierung verschlüsselt (TLS), Ton nicht (kein SRTP)",
}
