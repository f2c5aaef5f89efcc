package web

import (
	"time"

	"github.com/a-h/templ"
	"github.com/gofiber/fiber/v3"
	"github.com/softphone/softphone/sipua"
	"github.com/softphone/softphone/store"
	"github.com/softphone/softphone/views"
)

// phonePage is GET /: accounts, number field, dial pad, audio.
func (s *Server) phonePage(c fiber.Ctx) error {
	if s.welcomeShown(c) {
		return s.renderWelcome(c, views.WelcomeData{Errors: views.Errors{}}, fiber.StatusOK)
	}
	return s.renderPhone(c, "")
}

func (s *Server) renderPhone(c fiber.Ctx, number string) error {
	st := s.cfg.Settings.Get()
	s.mu.Lock()
	redial := s.redial
	s.mu.Unlock()
	if redial == "" && s.cfg.DB != nil {
		// After a restart: the last number called out, from the history.
		if hist, err := s.cfg.DB.ListHistory(c.Context(), store.HistoryFilter{Limit: 20}); err == nil {
			for _, h := range hist {
				if h.Direction == string(sipua.DirOut) && h.Number != "" {
					redial = h.Number
					break
				}
			}
		}
	}
	d := views.PhoneData{Accounts: s.accountViews(), Number: number, Redial: redial, Hotkeys: st.Hotkeys, Audio: st.Audio,
		Recent: s.recentCalls(c.Context()), Suggest: s.suggestions(c.Context(), ""), Lamps: s.lampViews(c.Context())}
	return s.render(c, views.PhonePage(s.fullPage(c, "phone"), d))
}

// fullPage is page() plus the live parts every page shows.
func (s *Server) fullPage(c fiber.Ctx, nav string) views.Page {
	p := s.page(c, nav)
	p.Calls = s.callViews()
	p.Ended = s.hub.recent.views(time.Now())
	p.Missed = s.missed(c.Context())
	p.Hotkeys = views.HotkeysJSON(s.cfg.Settings.Get().Hotkeys)
	p.AudioHolder, p.AudioLive = s.audioHolder()
	ov := s.officeView(p.L)
	p.Office = &ov
	return p
}

// callViews is the calls in progress as the pages show them.
func (s *Server) callViews() []views.CallView {
	if s.cfg.Phone == nil {
		return nil
	}
	calls := s.cfg.Phone.Calls()
	out := make([]views.CallView, 0, len(calls))
	for _, c := range calls {
		if c.State == sipua.StateEnded {
			continue
		}
		v := views.CallView{
			ID: c.ID, AccountID: c.AccountID, Account: c.Account, Direction: string(c.Direction),
			State: c.State.String(), Number: c.Number, Name: c.Name, Muted: c.Muted, Recording: c.Recording,
			Digits: s.hub.received(c.ID), Sent: s.hub.sentOn(c.ID), Secure: c.Secure, TLS: c.TLS,
		}
		if !c.StateAt.IsZero() {
			v.StateSinceMS = c.StateAt.UnixMilli()
		}
		if !c.AnsweredAt.IsZero() {
			v.AnsweredMS = c.AnsweredAt.UnixMilli()
		}
		out = append(out, v)
	}
	return out
}

// accountViews is the accounts with their registration state and which one
// is selected; from the phone when there is one, else from the settings.
func (s *Server) accountViews() []views.AccountView {
	st := s.cfg.Settings.Get()
	var list []AccountStatus
	if s.cfg.Phone != nil {
		list = s.cfg.Phone.Accounts()
	} else {
		for _, a := range st.Accounts {
			list = append(list, AccountStatus{Account: a, State: "unregistered"})
		}
	}
	out := make([]views.AccountView, 0, len(list))
	for i, a := range list {
		name := a.Name
		if name == "" {
			name = a.Username + "@" + a.Domain
		}
		state := a.State
		if !a.Enabled {
			state = "disabled"
		}
		sel := a.ID == st.SIP.SelectedAccount || (st.SIP.SelectedAccount == "" && i == 0)
		out = append(out, views.AccountView{ID: a.ID, Name: name, State: state, Cause: a.Cause, Selected: sel, Enabled: a.Enabled,
			Voicemail: voicemailText(s.lang(), a)})
	}
	return out
}

// audioHolder names the tab that holds the audio and whether its media
// flows, as the bridge knows it (an older bridge without page states: the
// tab that last offered or took the focus, live when attached).
func (s *Server) audioHolder() (string, bool) {
	if s.cfg.Bridge == nil {
		return "", false
	}
	if ta, ok := s.cfg.Bridge.(TabAudio); ok {
		return ta.Holder()
	}
	s.mu.Lock()
	holder := s.holder
	s.mu.Unlock()
	if !s.cfg.Bridge.Attached() {
		return "", false
	}
	return holder, true
}

func callsFragment(l views.L, calls []views.CallView, ended []views.EndedView) templ.Component {
	return templ.Join(views.CallsList(l, calls), views.EndedCalls(l, ended))
}

func accountsFragment(l views.L, a []views.AccountView) templ.Component {
	return views.AccountsList(l, a)
}

func audioFragment(l views.L, holder string, live bool) templ.Component {
	return views.AudioOwner(l, holder, live)
}
