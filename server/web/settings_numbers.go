package web

import (
	"strings"

	"github.com/gofiber/fiber/v3"
	"github.com/softphone/softphone/store"
	"github.com/softphone/softphone/views"
)

// The "Numbers" section of the settings (issue 16 item 4): the region that
// numbers without a country code are read in when they are matched to
// contacts. The store checks the value (`must be a region code like DE or
// US, got "x"`); the page words that in its language (views.regionErr).
func init() {
	sections["numbers"] = section{fields: []string{"sip.default_region"},
		apply: func(s *Server, c fiber.Ctx, st *store.Settings, errs views.Errors) {
			st.SIP.DefaultRegion = strings.ToUpper(strings.TrimSpace(c.FormValue("sip.default_region")))
		}}
}
