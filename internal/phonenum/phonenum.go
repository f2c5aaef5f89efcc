// Package phonenum puts telephone numbers into one form, E.164 (ITU-T
// E.164: "+" country code, national number), so that "+49 30 1234567",
// "0049301234567" and "030 1234567" dialled in Germany are found as the same
// contact. The rules of each country (trunk prefix, international prefix,
// number lengths) come from libphonenumber's metadata via
// github.com/nyaruka/phonenumbers.
package phonenum

import (
	"strings"

	"github.com/nyaruka/phonenumbers"
)

// ValidRegion reports whether r is a region code the metadata knows
// (ISO 3166-1 alpha-2, upper case: "DE", "US"). Empty is not a region.
func ValidRegion(r string) bool {
	return r != "" && r == strings.ToUpper(r) && phonenumbers.GetSupportedRegions()[r]
}

// minDigits is the shortest national number taken as one.
const minDigits = 6

// E164 gives the E.164 form of number, read as dialled in region (the
// setting sip.default_region; empty: only numbers written with "+" or an
// international prefix known without a region are understood). ok is false
// for what is not a possible telephone number there: an extension ("201"),
// a SIP user ("alice"), a SIP address. Such values are matched as written.
func E164(number, region string) (string, bool) {
	n := strings.TrimSpace(number)
	if n == "" || strings.ContainsAny(n, "@:;") {
		return "", false
	}
	// Anything but digits, separators and a leading "+" is a name or a
	// SIP user, never a number (phonenumbers would read letters as the
	// keypad's digits: "ALICE" is 25423).
	for i, r := range n {
		switch {
		case r >= '0' && r <= '9', strings.ContainsRune(" -./()\t", r):
		case r == '+' && i == 0:
		default:
			return "", false
		}
	}
	if region == "" {
		region = "ZZ" // unknown region: only "+..." numbers parse
	}
	p, err := phonenumbers.Parse(n, region)
	// Six digits at least: shorter is an extension or a service code
	// (the metadata of some countries allows national numbers of two).
	if err != nil || !phonenumbers.IsPossibleNumber(p) || len(phonenumbers.GetNationalSignificantNumber(p)) < minDigits {
		return "", false
	}
	return phonenumbers.Format(p, phonenumbers.E164), true
}
