package views

import "testing"

func TestConferenceButtonOnlyWhenJoinable(t *testing.T) {
	for _, tc := range []struct {
		states []string
		want   bool
	}{
		{[]string{"active"}, false},
		{[]string{"active", "hold"}, true},
		{[]string{"active", "ringing-in"}, false},
		{[]string{"conference", "conference"}, false},
		{[]string{"conference", "conference", "active"}, true},
	} {
		var calls []CallView
		for _, s := range tc.states {
			calls = append(calls, CallView{State: s})
		}
		if got := joinable(calls); got != tc.want {
			t.Errorf("%v: joinable %v, want %v", tc.states, got, tc.want)
		}
	}
}
