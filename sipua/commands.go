package sipua

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/emiago/sipgo/sip"
)

// Answer answers a ringing incoming call; a connected call is put on hold
// first (onecall.go).
func (p *Phone) Answer(ctx context.Context, id string) error {
	c, err := p.get(id)
	if err != nil {
		return fmt.Errorf("answer call %s: %w", id, err)
	}
	if c.snapshot().State != StateRingingIn {
		return fmt.Errorf("answer call %s: %w", id, ErrCallState)
	}
	if err := p.holdOthers(ctx, id); err != nil {
		return fmt.Errorf("answer call %s: %w", id, err)
	}
	return p.on(ctx, id, "answer", func(c *call) error { return c.answer() })
}

// Decline refuses a ringing incoming call (603 Decline).
func (p *Phone) Decline(ctx context.Context, id string) error {
	return p.on(ctx, id, "decline", func(c *call) error {
		if c.c.State != StateRingingIn {
			return ErrCallState
		}
		c.decline(603, "Decline")
		return nil
	})
}

// Hangup ends a call in any state: cancels a call being placed, declines
// a ringing one, sends BYE on a connected one.
func (p *Phone) Hangup(ctx context.Context, id string) error {
	c, err := p.get(id)
	if err != nil {
		return err
	}
	if err := c.hangup(ctx, ReasonLocalHangup); err != nil {
		return fmt.Errorf("hangup call %s: %w", id, err)
	}
	return nil
}

func (c *call) hangup(ctx context.Context, reason string) error {
	return c.doUrgent(ctx, func() error {
		switch c.c.State {
		case StateDialing, StateRingingOut:
			c.end(ReasonCancelled, OutcomeMissed) // end stops waiting: sipgo sends CANCEL
		case StateRingingIn:
			c.decline(603, "Decline")
		case StateEnded:
			return ErrNoCall
		default:
			c.bye()
			c.end(reason, OutcomeAnswered)
		}
		return nil
	})
}

// errGlare: the other side answered our re-INVITE 491 (RFC 3261 14.1).
var errGlare = errors.New("re-INVITEs crossed")

// Hold puts a connected call on hold: re-INVITE with sendonly (inactive
// when the other side holds too), RFC 3264 8.4.
func (p *Phone) Hold(ctx context.Context, id string) error {
	return p.holdOrResume(ctx, id, "hold", true)
}

// Resume takes a call off hold: re-INVITE with sendrecv.
func (p *Phone) Resume(ctx context.Context, id string) error {
	return p.holdOrResume(ctx, id, "resume", false)
}

// holdOrResume sends the re-INVITE, and once more after a 491 (glare: the
// other side's re-INVITE crossed ours), after the wait of RFC 3261 14.1:
// 2.1-4 s when we own the Call-ID (we placed the call), else 0-2 s. The
// wait is outside the call's goroutine, so the other side's retry is
// taken meanwhile; then ours goes.
func (p *Phone) holdOrResume(ctx context.Context, id, what string, hold bool) error {
	var owner bool
	err := p.on(ctx, id, what, func(c *call) error { owner = c.out != nil; return c.setHold(ctx, hold) })
	if !errors.Is(err, errGlare) {
		return err
	}
	wait := time.Duration(rand.Int64N(201)) * 10 * time.Millisecond // 0-2 s in units of 10 ms
	if owner {
		wait = 2100*time.Millisecond + time.Duration(rand.Int64N(191))*10*time.Millisecond // 2.1-4 s
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		return err
	}
	return p.on(ctx, id, what, func(c *call) error { return c.setHold(ctx, hold) })
}

func (c *call) setHold(ctx context.Context, hold bool) error {
	if !c.isConnected() {
		return ErrCallState
	}
	if c.localHold == hold {
		return nil
	}
	dir := dirSendRecv
	if hold {
		dir = dirSendOnly
	}
	if c.remoteHold {
		dir = map[bool]mediaDir{true: dirInactive, false: dirRecvOnly}[hold]
	}
	c.reinviting.Store(true) // glare: theirs gets 491 meanwhile (onInvite)
	res, err := c.request(ctx, sip.INVITE, c.localSDP(c.sessionCodecs(), dir), "application/sdp")
	c.reinviting.Store(false)
	if err != nil {
		return err
	}
	if res.StatusCode == 491 {
		return fmt.Errorf("%w: re-INVITE: %d %s", errGlare, res.StatusCode, res.Reason)
	}
	if !res.IsSuccess() {
		return fmt.Errorf("re-INVITE: %d %s", res.StatusCode, res.Reason)
	}
	if r, err := parseSDP(res.Body()); err == nil {
		if n, err := c.chooseMedia(r, false); err == nil {
			if n.keys, err = c.answeredSec(r); err != nil {
				c.endNotEncrypted(err)
				return err
			}
			c.neg = n
			if c.setKeys(n.keys) == nil {
				setRTCPPort(c.media, n.rtcp)
				_ = c.media.Start(n.remote, n.codec, n.dtmfPT)
			}
		}
	}
	c.media.SetDirection(dir)
	c.localHold = hold
	c.connected()
	return nil
}

func (c *call) isConnected() bool { return isConnectedState(c.c.State) }

// isConnectedState says whether a call in s was answered and goes on.
func isConnectedState(s CallState) bool {
	switch s {
	case StateActive, StateHold, StateOnHold, StateConference:
		return true
	}
	return false
}

// SetMute mutes or unmutes our microphone on a call. The state does not
// change; only EventCallUpdated is published (no webhook).
func (p *Phone) SetMute(ctx context.Context, id string, muted bool) error {
	return p.on(ctx, id, "mute", func(c *call) error {
		if c.media != nil {
			c.media.SetMute(muted)
		}
		if c.c.Muted != muted {
			c.c.Muted = muted
			c.publish(EventCallUpdated)
		}
		return nil
	})
}

// SendDTMF sends digits (0-9 * # A-D): RFC 4733 when telephone-event was
// negotiated, else SIP INFO with application/dtmf-relay.
func (p *Phone) SendDTMF(ctx context.Context, id, digits string) error {
	if digits == "" {
		return ErrNoDigits
	}
	for i := 0; i < len(digits); i++ {
		if d, ok := dtmfDigit(digits[i : i+1]); !ok || !validDigit(d) {
			return fmt.Errorf("dtmf %q: %w", digits[i:i+1], ErrBadDigit)
		}
	}
	return p.on(ctx, id, "dtmf", func(c *call) error {
		if !c.isConnected() {
			return ErrCallState
		}
		for i := 0; i < len(digits); i++ {
			d, _ := dtmfDigit(digits[i : i+1])
			if c.neg.dtmfPT != 0 && c.media.SendDTMF(d) == nil {
				continue
			}
			body := fmt.Sprintf("Signal=%c\r\nDuration=160\r\n", d)
			res, err := c.request(ctx, sip.INFO, []byte(body), "application/dtmf-relay")
			if err != nil {
				return err
			}
			if !res.IsSuccess() {
				return fmt.Errorf("INFO: %d %s", res.StatusCode, res.Reason)
			}
		}
		return nil
	})
}

// recorder is implemented by media sessions that can record.
// SetRecording gives the id of the recording it starts ("" when it stops).
type recorder interface {
	SetRecording(on bool) (string, error)
}

// Record starts or stops recording a call.
func (p *Phone) Record(ctx context.Context, id string, on bool) error {
	return p.on(ctx, id, "record", func(c *call) error {
		if !c.isConnected() {
			return ErrCallState
		}
		if r, ok := c.media.(recorder); ok {
			id, err := r.SetRecording(on)
			if err != nil {
				return err
			}
			if c.c.RecordingID == "" {
				c.c.RecordingID = id
			}
		}
		if c.c.Recording != on {
			c.c.Recording = on
			c.publish(EventCallUpdated)
		}
		return nil
	})
}

// Conference joins calls into a local conference: each is resumed if we
// held it, marked conference, and the media engine mixes them.
func (p *Phone) Conference(ctx context.Context, ids ...string) error {
	var calls []*call
	for _, id := range ids {
		c, err := p.get(id)
		if err != nil {
			return err
		}
		calls = append(calls, c)
	}
	var sessions []MediaSession
	for _, c := range calls {
		err := c.do(ctx, func() error {
			if !c.isConnected() {
				return ErrCallState
			}
			if c.localHold {
				if err := c.setHold(ctx, false); err != nil {
					return err
				}
			}
			sessions = append(sessions, c.media)
			return nil
		})
		if err != nil {
			return fmt.Errorf("conference call %s: %w", c.id, err)
		}
	}
	if err := p.media.Conference(sessions...); err != nil {
		return fmt.Errorf("conference: %w", err)
	}
	// webhooks.md: every call joined into a conference keeps the seance id
	// of the call it came from, the first one named.
	var seance string
	if err := calls[0].do(ctx, func() error { seance = calls[0].c.SeanceID; return nil }); err != nil {
		return fmt.Errorf("conference: %w", err)
	}
	for _, c := range calls {
		_ = c.do(ctx, func() error { c.conf = true; c.c.SeanceID = seance; c.connected(); return nil })
	}
	return nil
}

// on runs a command on a call's goroutine with the error wrapped.
func (p *Phone) on(ctx context.Context, id, what string, fn func(*call) error) error {
	c, err := p.get(id)
	if err != nil {
		return err
	}
	if err := c.do(ctx, func() error { return fn(c) }); err != nil {
		if errors.Is(err, ErrNoCall) {
			return fmt.Errorf("%s call %s: %w", what, id, ErrNoCall)
		}
		return fmt.Errorf("%s call %s: %w", what, id, err)
	}
	return nil
}

// contactName looks the number up in the contacts; "" when unknown.
func (p *Phone) contactName(number string) string {
	if p.db == nil || number == "" {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	ct, err := p.db.FindContactByNumber(ctx, number)
	if err != nil {
		return ""
	}
	return ct.Name
}
