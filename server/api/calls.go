package api

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v3"
	"github.com/softphone/softphone/sipua"
)

// callJSON is a call of GET /calls (rest-api.md "Call").
type callJSON struct {
	ID          string `json:"id"`
	SeanceID    string `json:"seance_id"`
	AccountID   string `json:"account_id"`
	Direction   string `json:"direction"`
	State       string `json:"state"`
	Number      string `json:"number"`
	Name        string `json:"name"`
	URI         string `json:"uri"`
	Dialed      string `json:"dialed"`
	Muted       bool   `json:"muted"`
	EventTS     int64  `json:"event_ts"`
	CallstartTS *int64 `json:"callstart_ts"`
	CallstateTS *int64 `json:"callstate_ts"`
	Secure      bool   `json:"secure"` // the media is encrypted (SRTP)
}

func toCallJSON(c sipua.Call, now time.Time) callJSON {
	return callJSON{ID: c.ID, SeanceID: c.SeanceID, AccountID: c.AccountID, Direction: string(c.Direction),
		State: c.State.String(), Number: c.Number, Name: c.Name, URI: c.URI, Dialed: c.Dialed, Muted: c.Muted,
		EventTS: now.UnixMilli(), CallstartTS: ms(c.StartedAt), CallstateTS: ms(c.StateAt), Secure: c.Secure}
}

// listCalls: GET /calls, a bare JSON array of the calls in progress, oldest first.
func (s *Server) listCalls(c fiber.Ctx) error {
	calls := s.cfg.Phone.Calls()
	var now time.Time
	if len(calls) > 0 { // the clock only for calls to stamp (event_ts)
		now = time.Now()
	}
	slices.SortStableFunc(calls, func(a, b sipua.Call) int { return a.StartedAt.Compare(b.StartedAt) })
	out := make([]callJSON, 0, len(calls))
	for _, cl := range calls {
		if cl.State != sipua.StateEnded {
			out = append(out, toCallJSON(cl, now))
		}
	}
	bp := callsBuf.Get().(*[]byte)
	*bp = appendCalls((*bp)[:0], out)
	c.Response().SetBody(*bp)                                                // copies
	c.Response().Header.SetContentType(fiber.MIMEApplicationJSONCharsetUTF8) // as c.JSON
	callsBuf.Put(bp)
	return nil
}

// liveCall finds a call in progress by its id.
func (s *Server) liveCall(id string) (sipua.Call, bool) {
	if !isUUID(id) {
		return sipua.Call{}, false
	}
	cl, ok := s.cfg.Phone.Call(id)
	return cl, ok && cl.State != sipua.StateEnded
}

// getCall: GET /calls/{id}. An unknown or ended call is 404 here (a
// resource read), 400 on the actions (rest-api.md "Errors").
func (s *Server) getCall(c fiber.Ctx) error {
	cl, ok := s.liveCall(param(c, "id"))
	if !ok {
		return fail(fiber.StatusNotFound, msgNoCall)
	}
	return c.JSON(toCallJSON(cl, time.Now()))
}

type dialBody struct {
	Number    string `json:"number"`
	AccountID string `json:"account_id"`
}

// dial: POST /calls. Answers 201 {"id": "<uuid>"} once the INVITE is sent.
// With an Idempotency-Key seen in the last 10 minutes it dials nothing and
// answers the same id.
func (s *Server) dial(c fiber.Ctx) error {
	var b dialBody
	if err := decode(c, &b); err != nil {
		return err
	}
	number := strings.TrimSpace(b.Number)
	if number == "" {
		return fail(fiber.StatusBadRequest, msgNoNumber)
	}
	if b.AccountID != "" {
		if !isUUID(b.AccountID) {
			return fail(fiber.StatusBadRequest, msgBadAccountID)
		}
		if _, ok := findAccount(s.cur.Load().Accounts, b.AccountID); !ok {
			return fail(fiber.StatusBadRequest, msgNoAccount)
		}
	}
	place := func() (string, error) {
		if err := s.awaitTab(c.Context()); err != nil {
			return "", err
		}
		cl, err := s.cfg.Phone.Dial(c.Context(), number, b.AccountID)
		if err != nil {
			return "", phoneError(err)
		}
		return cl.ID, nil
	}
	var id string
	var err error
	// The key outlives the request in s.idem: clone it, as fiber's strings
	// point into a buffer the next request reuses (a stored key turned into a
	// later request's key and replayed a call that was never placed).
	if key := strings.Clone(c.Get("Idempotency-Key")); key != "" {
		var replayed bool
		id, replayed, err = s.idem.do(key, place)
		if replayed {
			c.Set("Idempotent-Replayed", "true")
		}
		var many errTooManyKeys
		switch {
		case errors.Is(err, errKeyTooLong):
			err = fail(fiber.StatusBadRequest, msgKeyTooLong)
		case errors.As(err, &many):
			c.Set(fiber.HeaderRetryAfter, strconv.Itoa(int((many.retry+time.Second-1)/time.Second)))
			err = fail(fiber.StatusTooManyRequests, msgTooManyKeys)
		}
	} else {
		id, err = place()
	}
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderLocation, "/calls/"+id)
	return created(c, fiber.Map{"id": id})
}

type action int

const (
	actAnswer action = iota
	actHangup
	actHold
	actResume
	actDTMF
	actTransfer
)

type actionBody struct {
	Digits string `json:"digits"`
	Target string `json:"target"`
}

// callAction: POST /calls/{id}/{answer,hangup,hold,resume,dtmf,transfer}.
// Success is 204 No Content: the call's new state arrives in GET /calls,
// /events and the webhooks.
func (s *Server) callAction(a action) fiber.Handler {
	return func(c fiber.Ctx) error {
		id := param(c, "id")
		if _, ok := s.liveCall(id); !ok {
			return fail(fiber.StatusBadRequest, msgNoCall)
		}
		var b actionBody
		if a == actDTMF || a == actTransfer {
			if err := decodeAction(c, a, &b); err != nil {
				return err
			}
		}
		ctx, p := c.Context(), s.cfg.Phone
		var err error
		switch a {
		case actAnswer:
			err = p.Answer(ctx, id)
		case actHangup:
			err = p.Hangup(ctx, id)
		case actHold:
			err = p.Hold(ctx, id)
		case actResume:
			err = p.Resume(ctx, id)
		case actDTMF:
			err = p.SendDTMF(ctx, id, b.Digits)
		case actTransfer:
			err = p.Transfer(ctx, id, b.Target)
		}
		if err != nil {
			return phoneError(err)
		}
		return c.SendStatus(fiber.StatusNoContent)
	}
}

func decodeAction(c fiber.Ctx, a action, b *actionBody) error {
	var raw struct {
		Digits *string `json:"digits"`
		Target *string `json:"target"`
	}
	if err := decode(c, &raw); err != nil {
		return err
	}
	if a == actDTMF {
		if raw.Digits == nil || strings.TrimSpace(*raw.Digits) == "" {
			return fail(fiber.StatusBadRequest, msgNoDigits)
		}
		b.Digits = strings.TrimSpace(*raw.Digits)
	}
	if a == actTransfer {
		if raw.Target == nil || strings.TrimSpace(*raw.Target) == "" {
			return fail(fiber.StatusBadRequest, msgNoTarget)
		}
		b.Target = strings.TrimSpace(*raw.Target)
	}
	return nil
}
