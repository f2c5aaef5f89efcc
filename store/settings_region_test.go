package store

import (
	"errors"
	"testing"
)

// sip.default_region takes a region code or nothing; anything else is
// refused with the message.
func TestSettingsDefaultRegion(t *testing.T) {
	for _, r := range []string{"", "DE", "US", "GB"} {
		s := DefaultSettings()
		s.SIP.DefaultRegion = r
		if err := s.Validate(); err != nil {
			t.Errorf("sip.default_region %q refused: %v", r, err)
		}
	}
	for _, r := range []string{"de", "Germany", "XX", "49"} {
		s := DefaultSettings()
		s.SIP.DefaultRegion = r
		err := s.Validate()
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Key != "sip.default_region" ||
			fe.Msg != `must be a region code like DE or US, got "`+r+`"` {
			t.Errorf("sip.default_region %q: Validate() = %v", r, err)
		}
	}
	if DefaultSettings().SIP.DefaultRegion != "" {
		t.Errorf("default sip.default_region = %q, want empty", DefaultSettings().SIP.DefaultRegion)
	}
}
