package sipua

// CallState is the state of a call, with exactly the values of rest-api.md
// "States and transitions".
type CallState int

// The call states. The zero value is not a state.
const (
	StateDialing CallState = iota + 1
	StateRingingOut
	StateRingingIn
	StateActive
	StateHold
	StateOnHold
	StateConference
	StateEnded
)

// String gives the spec's spelling of the state.
func (s CallState) String() string {
	switch s {
	case StateDialing:
		return "dialing"
	case StateRingingOut:
		return "ringing-out"
	case StateRingingIn:
		return "ringing-in"
	case StateActive:
		return "active"
	case StateHold:
		return "hold"
	case StateOnHold:
		return "onhold"
	case StateConference:
		return "conference"
	case StateEnded:
		return "ended"
	}
	return "unknown"
}

// MarshalText makes a state encode as its spec spelling in JSON.
func (s CallState) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// connectedState applies the precedence of rest-api.md: conference wins over
// hold, and hold wins over onhold.
func connectedState(conference, localHold, remoteHold bool) CallState {
	switch {
	case conference:
		return StateConference
	case localHold:
		return StateHold
	case remoteHold:
		return StateOnHold
	}
	return StateActive
}
