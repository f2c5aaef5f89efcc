package web

import "github.com/softphone/softphone/store"

// AccountStatus is one account with its registration state, the shape of
// sipua.AccountStatus in contracts.md. Kept here until sipua has it; then it
// becomes an alias of that type.
type AccountStatus struct {
	store.Account
	State, Cause string
}

// DayCount is the calls of one outcome on one day.
type DayCount = store.DayCount
