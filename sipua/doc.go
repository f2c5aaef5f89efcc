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
//     registrar, else the domain. Keep-alives (RFC 5626 3.5.1): a double CRLF
//     toward the account's server (the one REGISTER goes to) every 25 s on
//     UDP, from the listening socket so the NAT binding of our Contact
//     stays (CRLF rather than OPTIONS: no transaction, no answer needed),
//     and every 60 s on TCP/TLS over the open connection; Config
//     KeepAliveUDP and KeepAliveTCP change the intervals. A pong is not
//     required and not checked.
//   - An answered call whose far end sends no RTP (comfort noise and tones
//     count) and no RTCP for sip.media_timeout_s (30 s; 0: never) while
//     neither side holds it ends with a BYE and reason media-timeout (a PBX
//     gone without a BYE left it up for ever); Config MediaTimeout
//     overrides the setting.
//   - Outgoing calls: a 180/183 gives ringing-out; a 183 (or any 18x) with
//     SDP starts the media at once (early media), moved if a later 18x
//     names another address or codec; the 200's SDP applies again. sipgo
//     hands each response up from its own goroutine and drops a 1xx that
//     it handles after the 2xx, so 18x responses are also noted where they
//     are read off the wire (the trace hook, by Call-ID): a call whose 18x
//     was read before its 200 always goes ringing-out before active.
//   - BYE is sent by us inside the dialog (sipgo's WriteBye) and a 401/407
//     to it is answered once with digest credentials, like re-INVITE,
//     INFO and REFER.
//   - SIPTrace: the last 500 SIP messages (at most 1 MiB) sent and received,
//     with time, direction, transport and addresses, from sipgo's
//     process-wide trace hook (sip.SIPDebugTracer) routed to the phone whose
//     socket carried them. TCP is traced per read, so one entry can hold
//     part of a message or several. Authorization and Proxy-Authorization
//     keep only username, realm and uri. Keep-alives (bare CRLFs) are left
//     out so hours of them do not push the real messages out.
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
//   - The office (office.go, subscribe.go, blf.go, presence.go, publish.go,
//     mwi.go, pickup.go): watched contacts are subscribed to (RFC 6665) for
//     the dialog package (RFC 4235) and, with the account's presence switch,
//     presence (RFC 3856); accounts with mwi for message-summary (RFC
//     3842). Subscriptions start when their account has registered, are
//     refreshed at 80% of the granted expiry, made again in a new dialog
//     after 481, no answer or a terminating NOTIFY (2 s doubling to 2 min)
//     and after a registration that follows a failure, and end with
//     Expires: 0. NOTIFYs match by Call-ID and both tags (others 481); a
//     lower CSeq is ignored; bodies over 16 KiB or that do not parse change
//     nothing. A ringing dialog toward the colleague outranks a busy one
//     (what a pickup needs); pickup is the account's pickup_prefix plus the
//     number, else an INVITE with Replaces from the ringing dialog's tags.
//     The user's status is published (RFC 3903) as dnd with
//     do-not-disturb, busy while any call is up, else the settings' choice.
package sipua
