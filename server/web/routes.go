package web

import (
	"io/fs"

	"github.com/gofiber/fiber/v3/middleware/static"
	assets "github.com/softphone/softphone/static"
)

// routes: every path of the phone pages, top to bottom. The Host check and
// security headers come first for everything; static files need no session
// (they hold no data); all else needs a session, and changes need CSRF.
func (s *Server) routes() {
	a := s.app
	a.Use(s.checkHost, headers)
	dist, _ := fs.Sub(assets.FS, ".")
	a.Get("/static/*", static.New("", static.Config{FS: dist, MaxAge: 0}))
	a.Get("/sw.js", s.serviceWorker)
	a.Get("/", s.login)          // ?key=... redeems the printed link
	a.Post("/dial", s.dialByKey) // `softphone dial` with the home's key; else on to the session

	a.Use(s.requireSession, s.checkCSRF)
	a.Get("/", s.phonePage)
	a.Get("/alive", ok) // the page asks when its live stream breaks: down, or a session this run does not know (link.ts)
	a.Get("/events", s.events)
	a.Get("/dial", s.dialLink)
	a.Post("/origins/answer", s.answerOrigin)
	a.Post("/calls", s.dial)
	a.Post("/welcome", s.welcome)
	a.Post("/calls/conference", s.conference)
	a.Post("/calls/ended/:id/dismiss", s.dismissEnded)
	a.Get("/dial/suggest", s.suggest)
	a.Post("/calls/:id/:action", s.callAction)
	a.Post("/accounts/:id/select", s.selectAccount)
	a.Post("/webrtc/offer", s.offer)
	a.Post("/webrtc/focus", s.focus)
	a.Post("/webrtc/close", s.closeTab)
	a.Get("/audio/ws", s.audioSocket)
	a.Get("/contacts", s.contactsPage)
	a.Get("/contacts/export.:format<regex(^(vcf|csv)$)>", s.exportContacts)
	a.Post("/contacts", s.saveContact)
	a.Post("/contacts/import", s.importContacts)
	a.Post("/contacts/:id/delete", s.deleteContact)
	a.Post("/contacts/:id/pickup", s.pickup)
	a.Post("/voicemail/:id/call", s.callVoicemail)
	a.Post("/presence", s.setPresence)
	a.Post("/contacts/:id", s.saveContact)
	a.Get("/history", s.historyPage)
	a.Post("/history/:id/tags", s.historyTags)
	a.Post("/history/:id/note", s.historyNote)
	a.Get("/settings", s.settingsPage)
	a.Post("/settings/accounts", s.saveAccount)
	a.Post("/settings/accounts/:id/delete", s.deleteAccount)
	a.Post("/settings/webhooks/test", s.webhookTest)
	a.Post("/settings/webhooks/resend/:id", s.webhookResend)
	a.Post("/settings/taxonomy", s.saveTaxonomy)
	a.Post("/settings/taxonomy/:code/retire", s.retireTaxonomy)
	a.Post("/settings/origins/remove", s.removeOrigin)
	a.Post("/settings/:section", s.saveSection)
	a.Get("/recordings", s.recordingsPage)
	a.Get("/diagnostics/sip-trace.txt", s.sipTrace)
	a.Post("/audio", s.audioPref)
	a.Post("/appearance/theme", s.themePref)
}
