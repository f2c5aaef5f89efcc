package phonenum

import "testing"

// Several ways of writing one number give one E.164 form; what is no number
// there gives none.
func TestE164(t *testing.T) {
	for _, c := range []struct {
		in, region, want string
		ok               bool
	}{
		{"+49 30 1234567", "", "+49301234567", true},
		{"+49 (30) 123-4567", "US", "+49301234567", true},
		{"0049 30 1234567", "DE", "+49301234567", true},
		{"030 1234567", "DE", "+49301234567", true},
		{"(030) 123 45 67", "DE", "+49301234567", true},
		{"030 1234567", "", "", false}, // national without a region: unknown
		{"(212) 555-0123", "US", "+12125550123", true},
		{"011 49 30 1234567", "US", "+49301234567", true},
		{"201", "DE", "", false}, // an extension
		{"alice", "DE", "", false},
		{"sip:+49301234567@pbx", "DE", "", false},
		{"", "DE", "", false},
	} {
		got, ok := E164(c.in, c.region)
		if got != c.want || ok != c.ok {
			t.Errorf("E164(%q, %q) = %q, %v; want %q, %v", c.in, c.region, got, ok, c.want, c.ok)
		}
	}
}

func TestValidRegion(t *testing.T) {
	for r, want := range map[string]bool{"DE": true, "US": true, "GB": true, "de": false, "XX": false, "": false, "DEU": false} {
		if ValidRegion(r) != want {
			t.Errorf("ValidRegion(%q) = %v, want %v", r, !want, want)
		}
	}
}
