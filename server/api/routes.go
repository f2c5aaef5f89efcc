package api

import (
	"strings"

	"github.com/gofiber/fiber/v3"
	"github.com/softphone/softphone/store"
)

// route is one endpoint. The same table drives routing, the group and token
// checks, the listing at / and the test against openapi.json.
type route struct {
	method  string
	path    string // spec form: /calls/{id}/answer
	group   string // access group; "" = always served
	token   bool   // changes stored data: served only with the right token
	body    bool   // takes a JSON body
	merge   bool   // also takes application/merge-patch+json (RFC 7396)
	params  bool   // the path has parameters ({id}); set by routes
	summary string // English, for the listing at /
	handler fiber.Handler
}

// Access groups of the routes that rest-api.md does not place: the /ui
// recording pages and the taxonomy belong to Call history (recordings and
// taxonomy codes are about past calls); /events to Calls.
const (
	groupUI       = store.GroupHistory
	groupTaxonomy = store.GroupHistory
)

func (s *Server) table() []route { return s.routeTable }

// routes is the whole API, top to bottom.
func (s *Server) routes() []route {
	const (
		get, post, put, patch, del = fiber.MethodGet, fiber.MethodPost, fiber.MethodPut, fiber.MethodPatch, fiber.MethodDelete
		contacts, history, calls   = store.GroupContacts, store.GroupHistory, store.GroupCalls
		accounts, settings, count  = store.GroupAccounts, store.GroupSettings, store.GroupCounters
	)
	t := []route{
		{method: get, path: "/", summary: "This list of everything served.", handler: s.listing},
		{method: get, path: "/openapi.json", summary: "OpenAPI 3.1 description of this interface.", handler: s.openAPI},
		{method: get, path: "/metrics", group: count, summary: "Counters in the Prometheus text format.", handler: s.metrics},

		{method: get, path: "/calls", group: calls, summary: "Calls in progress.", handler: s.listCalls},
		{method: post, path: "/calls", group: calls, body: true, summary: "Place a call: JSON body with number and optional account_id.", handler: s.dial},
		{method: get, path: "/calls/{id}", group: calls, summary: "One call in progress.", handler: s.getCall},
		{method: post, path: "/calls/{id}/answer", group: calls, summary: "Answer a ringing call.", handler: s.callAction(actAnswer)},
		{method: post, path: "/calls/{id}/hangup", group: calls, summary: "Hang a call up.", handler: s.callAction(actHangup)},
		{method: post, path: "/calls/{id}/hold", group: calls, summary: "Put a call on hold.", handler: s.callAction(actHold)},
		{method: post, path: "/calls/{id}/resume", group: calls, summary: "Take a call off hold.", handler: s.callAction(actResume)},
		{method: post, path: "/calls/{id}/dtmf", group: calls, body: true, summary: "Send DTMF tones: JSON body with digits.", handler: s.callAction(actDTMF)},
		{method: post, path: "/calls/{id}/transfer", group: calls, body: true, summary: "Transfer a call: JSON body with target.", handler: s.callAction(actTransfer)},
		{method: get, path: "/events", group: calls, summary: "Call events as Server-Sent Events (resumable with Last-Event-ID).", handler: s.streamEvents},

		{method: get, path: "/contacts", group: contacts, summary: "Contacts.", handler: s.listContacts},
		{method: post, path: "/contacts", group: contacts, token: true, body: true, summary: "Create a contact.", handler: s.createContact},
		{method: get, path: "/contacts/{id}", group: contacts, summary: "One contact.", handler: s.getContact},
		{method: put, path: "/contacts/{id}", group: contacts, token: true, body: true, summary: "Change a contact.", handler: s.updateContact},
		{method: del, path: "/contacts/{id}", group: contacts, token: true, summary: "Delete a contact.", handler: s.deleteContact},
		{method: post, path: "/contacts/{id}/pickup", group: calls, summary: "Pick up the call ringing at a watched contact.", handler: s.pickup},

		{method: get, path: "/history", group: history, summary: "Call history, newest first (limit, missed, declined).", handler: s.listHistory},
		{method: get, path: "/history/{id}", group: history, summary: "One history entry.", handler: s.getHistory},
		{method: patch, path: "/history/{id}", group: history, token: true, body: true, summary: "Set the note and taxonomy tags of a history entry.", handler: s.patchHistory},

		{method: get, path: "/taxonomy", group: groupTaxonomy, summary: "Categories, tags and red flags with codes.", handler: s.listTaxonomy},
		{method: post, path: "/taxonomy", group: groupTaxonomy, token: true, body: true, summary: "Create a taxonomy entry.", handler: s.createTaxonomy},
		{method: put, path: "/taxonomy/{code}", group: groupTaxonomy, token: true, body: true, summary: "Change a taxonomy entry.", handler: s.updateTaxonomy},
		{method: post, path: "/taxonomy/{code}/retire", group: groupTaxonomy, token: true, summary: "Retire a taxonomy entry.", handler: s.retireTaxonomy},

		{method: get, path: "/ui", group: groupUI, summary: "Page listing recordings.", handler: s.uiList},
		{method: get, path: "/ui/recordings/{id}", group: groupUI, summary: "Page with one recording and its transcript.", handler: s.uiRecording},
		{method: get, path: "/ui/recordings/{id}/audio", group: groupUI, summary: "Audio of one recording (Range requests).", handler: s.uiAudio},
		{method: post, path: "/ui/recordings/{id}/transcript", group: groupUI, summary: "Run a failed transcript again; 303 to the recording's page.", handler: s.uiRetryTranscript},
		{method: del, path: "/ui/recordings/{id}", group: groupUI, token: true, summary: "Delete a recording, its audio and transcript.", handler: s.uiDelete},

		{method: get, path: "/accounts", group: accounts, summary: "SIP accounts and their registration state.", handler: s.listAccounts},
		{method: post, path: "/accounts", group: accounts, token: true, body: true, summary: "Add a SIP account.", handler: s.createAccount},
		{method: get, path: "/accounts/{id}", group: accounts, summary: "One SIP account.", handler: s.getAccount},
		{method: put, path: "/accounts/{id}", group: accounts, token: true, body: true, summary: "Change a SIP account.", handler: s.updateAccount},
		{method: del, path: "/accounts/{id}", group: accounts, token: true, summary: "Remove a SIP account.", handler: s.deleteAccount},

		{method: get, path: "/settings", group: settings, summary: "Configuration without secrets.", handler: s.getSettings},
		{method: patch, path: "/settings", group: settings, token: true, body: true, merge: true, summary: "Change settings (JSON merge patch).", handler: s.patchSettings},
		{method: post, path: "/webhooks/test", group: settings, token: true, summary: "Send the webhook test event.", handler: s.webhookTest},
	}
	for i := range t {
		t[i].params = strings.Contains(t[i].path, "{")
	}
	return t
}
