package web

import (
	"github.com/gofiber/fiber/v3"
	"github.com/softphone/softphone/store"
	"github.com/softphone/softphone/views"
)

// The "Call handling" section of the settings: how incoming calls are
// taken and when a call is given up. These were in settings.json and the
// API only, so a person at the page could not turn on auto-answer, let a
// colleague's phone call directly, or keep the calls of a PBX that sends
// nothing while the line is quiet (sip.media_timeout_s 0).
func init() {
	sections["handling"] = section{fields: []string{"sip.auto_answer", "sip.allow_call_info_answer",
		"sip.accept_calls_from", "sip.ring_timeout_s", "sip.media_timeout_s"}, apply: applyHandling}
}

func applyHandling(s *Server, c fiber.Ctx, st *store.Settings, errs views.Errors) {
	l := reqLang(c)
	st.SIP.AutoAnswer = checked(c, "sip.auto_answer")
	st.SIP.AllowCallInfoAnswer = checked(c, "sip.allow_call_info_answer")
	st.SIP.AcceptCallsFrom = oneOf(c, "sip.accept_calls_from", store.AcceptCallsFromValues, errs, l)
	st.SIP.RingTimeoutS = intField(c, "sip.ring_timeout_s", 1, 3600, errs, l)
	// 1-4 s pass here: the store refuses them ("must be 0 (never) or
	// 5-3600 seconds"), and the page puts that next to the field in its
	// language (placeErrors, views.StoreMsg).
	st.SIP.MediaTimeoutS = intField(c, "sip.media_timeout_s", 0, 3600, errs, l)
}
