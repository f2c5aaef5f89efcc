// Package sipua is the phone itself: SIP accounts and their registration,
// calls and their state machine, hold, DTMF, transfer, conference, seance ids,
// call history, and the event bus every other part listens to. It is built on
// github.com/emiago/sipgo and never imports fiber, templ, prometheus or gorm.
package sipua
