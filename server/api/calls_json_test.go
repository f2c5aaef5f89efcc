package api

import (
	"encoding/json"
	"testing"
)

// TestAppendCallsIsJSONMarshal: the hand-written GET /calls body is byte for
// byte what encoding/json makes of the same calls, escapes included.
func TestAppendCallsIsJSONMarshal(t *testing.T) {
	start, state := int64(1700000000123), int64(1700000000456)
	odd := "A <b>&\"quoted\"\\ \n\r\t\x01\x1f é 中 \u2028\u2029 \xff end"
	cases := [][]callJSON{
		{},
		{{ID: "0b6f3c8e-5d21-4a7e-9f10-6c2d8e4b7a35", Direction: "in", State: "ringing", Number: "+4930100", EventTS: 1}},
		{
			{ID: "a", SeanceID: "s", AccountID: "acc", Direction: "out", State: "active", Number: "100", Name: odd,
				URI: "sip:100@example.org;transport=tls", Dialed: "100", Muted: true, EventTS: 42, CallstartTS: &start, CallstateTS: &state, Secure: true},
			{ID: odd, Name: "Zoë", EventTS: -1, CallstateTS: &state},
		},
	}
	for i, calls := range cases {
		want, err := json.Marshal(calls)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendCalls(nil, calls); string(got) != string(want) {
			t.Errorf("case %d:\n got %s\nwant %s", i, got, want)
		}
	}
}
