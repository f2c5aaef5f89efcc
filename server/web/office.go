package web

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v3"
	"github.com/softphone/softphone/sipua"
	"github.com/softphone/softphone/store"
	"github.com/softphone/softphone/views"
)

// Office is what the pages use of the phone's busy lamps, pickup, presence
// and voicemail (issue 19); *sipua.Phone satisfies it.
type Office interface {
	ContactState(contactID string) sipua.ContactState
	Pickup(ctx context.Context, contactID string) (sipua.Call, error)
	CallVoicemail(ctx context.Context, accountID string) (sipua.Call, error)
}

// watchedStore is the part of the store that lists watched contacts.
type watchedStore interface {
	WatchedContacts(ctx context.Context) ([]store.Contact, error)
}

func (s *Server) office() (Office, bool) {
	if s.cfg.Phone == nil {
		return nil, false
	}
	o, ok := s.cfg.Phone.(Office)
	return o, ok
}

// lampViews are the watched contacts with their line and presence.
func (s *Server) lampViews(ctx context.Context) []views.LampView {
	ws, ok := s.cfg.DB.(watchedStore)
	if !ok {
		return nil
	}
	cs, err := ws.WatchedContacts(ctx)
	if err != nil {
		s.log.Warn("watched contacts", "error", err)
		return nil
	}
	o, _ := s.office()
	out := make([]views.LampView, 0, len(cs))
	for _, c := range cs {
		lv := views.LampView{ID: c.ID, Name: c.Name, Number: c.Number, LineState: sipua.LineUnknown, Presence: sipua.PresenceUnknown}
		if o != nil {
			st := o.ContactState(c.ID)
			lv.LineState, lv.Presence = st.LineState, st.Presence
		}
		out = append(out, lv)
	}
	return out
}

// lineStates maps watched contacts to their line state, for the contact list.
func (s *Server) lineStates(cs []store.Contact) map[string]string {
	o, ok := s.office()
	m := map[string]string{}
	for _, c := range cs {
		if c.Watch && ok {
			m[c.ID] = o.ContactState(c.ID).LineState
		}
	}
	return m
}

// officeView is the header: the user's status and each mailbox watched.
func (s *Server) officeView(l views.L) views.OfficeView {
	st := s.cfg.Settings.Get()
	ov := views.OfficeView{Status: st.SIP.PresenceStatus}
	if ov.Status == "" {
		ov.Status = sipua.PresenceAvailable
	}
	if st.SIP.DoNotDisturb {
		ov.Status = sipua.PresenceDND
	}
	var list []AccountStatus
	if s.cfg.Phone != nil {
		list = s.cfg.Phone.Accounts()
	}
	for _, a := range list {
		if !a.Enabled || (!a.MWI && a.VoicemailNumber == "") {
			continue
		}
		v := views.VoicemailView{AccountID: a.ID, Name: a.Name, Watched: a.MWI, CanCall: a.VoicemailNumber != ""}
		if v.Name == "" {
			v.Name = a.Username + "@" + a.Domain
		}
		if a.Voicemail != nil {
			v.Known, v.New, v.Old = true, a.Voicemail.New, a.Voicemail.Old
		}
		ov.Voicemail = append(ov.Voicemail, v)
	}
	return ov
}

// voicemailText is an account's count as the accounts list shows it.
func voicemailText(l views.L, a AccountStatus) string {
	if !a.MWI || a.Voicemail == nil {
		return ""
	}
	return l.F("office.vm.count", strconv.Itoa(a.Voicemail.New), strconv.Itoa(a.Voicemail.Old))
}

// officeParts are the live parts of the pages for the event stream.
func (s *Server) officeParts(l views.L) []struct {
	name string
	comp templ.Component
} {
	return []struct {
		name string
		comp templ.Component
	}{
		{"lamps", views.LampsPanel(l, s.lampViews(context.Background()))},
		{"office", views.OfficeHeader(l, s.officeView(l))},
	}
}

// pickup is POST /contacts/:id/pickup: takes the call ringing at a watched contact.
func (s *Server) pickup(c fiber.Ctx) error {
	o, has := s.office()
	if !has {
		return s.fail(c, fiber.StatusServiceUnavailable, s.lang().T("err.nophone"))
	}
	call, err := o.Pickup(c.Context(), c.Params("id"))
	if errors.Is(err, sipua.ErrNotRinging) {
		return s.fail(c, fiber.StatusConflict, s.lang().T("err.notringing"))
	}
	if err != nil {
		return s.acted(c, err)
	}
	return s.dialed(c, call.ID)
}

// callVoicemail is POST /voicemail/:id/call: dials the account's voicemail_number.
func (s *Server) callVoicemail(c fiber.Ctx) error {
	o, has := s.office()
	if !has {
		return s.fail(c, fiber.StatusServiceUnavailable, s.lang().T("err.nophone"))
	}
	call, err := o.CallVoicemail(c.Context(), c.Params("id"))
	if errors.Is(err, sipua.ErrNoVoicemail) {
		return s.fail(c, fiber.StatusBadRequest, s.lang().T("err.novoicemail"))
	}
	if err != nil {
		return s.acted(c, err)
	}
	return s.dialed(c, call.ID)
}

// setPresence is POST /presence (status available, away, busy or dnd): dnd
// is do-not-disturb (sip.do_not_disturb), the others the user's choice
// (sip.presence_status) with do-not-disturb off.
func (s *Server) setPresence(c fiber.Ctx) error {
	v := strings.TrimSpace(c.FormValue("status"))
	if !slices.Contains(views.OfficeStatuses, v) {
		return s.fail(c, fiber.StatusBadRequest, s.lang().F("err.oneof", strings.Join(views.OfficeStatuses, ", ")))
	}
	_, err := s.cfg.Settings.Update(func(st *store.Settings) error {
		st.SIP.DoNotDisturb = v == sipua.PresenceDND
		if v != sipua.PresenceDND {
			st.SIP.PresenceStatus = v
		}
		return nil
	})
	if err != nil {
		return s.fail(c, fiber.StatusBadRequest, err.Error())
	}
	s.hub.poke()
	return ok(c)
}
