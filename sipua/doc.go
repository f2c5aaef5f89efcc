// Package sipua is the phone itself: SIP accounts and their registration,
// calls and their state machine, hold, DTMF, transfer, conference, seance ids,
// call history, and the event bus every other part listens to. It is built on
// github.com/emiago/sipgo and never imports fiber, templ, prometheus or gorm.
//
// Choices where the specs are silent:
//
//   - Registration states: registered, registering, unregistered, failed
//     (Cause is the registrar's status line such as "403 Forbidden", or
//     "timeout", or "network error: ..."), disabled. Every success and
//     failure is an EventRegistration with OK or Failed set; state changes
//     without a result (registering, disabled) are events with neither.
//     Refresh at 80% of the granted expiry; retries after 2 s doubling to
//     2 min; 423 is answered with the registrar's Min-Expires.
//   - Requests for calls go to the outbound proxy, else to the account domain
//     (with the account port); REGISTER to the outbound proxy, else to the
//     registrar, else the domain. Keep-alives: CRLFCRLF every 25 s (UDP from
//     the listening socket, TCP/TLS on the open connection).
//   - Outcomes and reasons of calls that end unanswered: busy (486, 600) and
//     declined (603) give outcome declined; no answer (408, 480, or our 2 min
//     timeout) and cancelled (we hung up while it rang, or 487) give missed;
//     anything else gives failed with reason failed. An incoming call the
//     caller cancels is missed/cancelled; one we decline (603) or refuse under
//     do-not-disturb (486) is declined/declined with Declined set.
//   - A transfer ends our leg with reason transferred; so do calls replaced
//     by an INVITE with Replaces. Transfer waits up to 60 s for the final
//     NOTIFY and returns ErrTransferFailed with the sipfrag status otherwise.
//     Transfer and AttendedTransfer on a call whose account was removed give
//     ErrAccountGone and send nothing. Consult places a consultation call that
//     keeps the seance id of the call it consults about.
//   - DTMF goes as RFC 4733 when telephone-event was negotiated and the media
//     session can send it, else as SIP INFO (application/dtmf-relay).
package sipua
