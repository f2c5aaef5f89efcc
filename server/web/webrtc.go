package web

import (
	"encoding/json"
	"regexp"
	"time"

	"context"

	"github.com/gofiber/fiber/v3"
)

// tabID is the id phone.ts makes for its tab (a UUID or similar token).
var tabID = regexp.MustCompile(`^[A-Za-z0-9-]{8,64}$`)

type offerReq struct {
	Tab string `json:"tab"`
	SDP string `json:"sdp"`
}

// offer is POST /webrtc/offer: the tab's SDP offer goes to the audio bridge,
// whose answer goes back. The tab that offers holds the audio.
func (s *Server) offer(c fiber.Ctx) error {
	if s.cfg.Bridge == nil {
		return c.Status(fiber.StatusServiceUnavailable).JSON(fiber.Map{"error": ErrNoAudio.Error()})
	}
	var req offerReq
	if err := json.Unmarshal(c.Body(), &req); err != nil || !tabID.MatchString(req.Tab) || req.SDP == "" {
		return c.Status(fiber.StatusBadRequest).JSON(fiber.Map{"error": "need tab and sdp"})
	}
	ctx, cancel := context.WithTimeout(c.Context(), 15*time.Second)
	defer cancel()
	conn, prev := s.rtc.begin(req.Tab)
	answer, err := s.cfg.Bridge.Offer(ctx, req.Tab, req.SDP)
	if err != nil {
		s.rtc.undo(req.Tab, conn, prev)
		s.log.Warn("web: webrtc offer", "tab", req.Tab, "err", err)
		return c.Status(fiber.StatusBadGateway).JSON(fiber.Map{"error": "the audio bridge refused the offer"})
	}
	s.setHolder(req.Tab)
	return c.JSON(fiber.Map{"sdp": answer, "type": "answer", "conn": conn})
}

// focus is POST /webrtc/focus: the last focused tab holds the audio.
func (s *Server) focus(c fiber.Ctx) error {
	if s.cfg.Bridge == nil {
		return c.Status(fiber.StatusServiceUnavailable).JSON(fiber.Map{"error": ErrNoAudio.Error()})
	}
	var req offerReq
	if err := json.Unmarshal(c.Body(), &req); err != nil || !tabID.MatchString(req.Tab) {
		return c.Status(fiber.StatusBadRequest).JSON(fiber.Map{"error": "need tab"})
	}
	s.cfg.Bridge.Focus(req.Tab)
	s.setHolder(req.Tab)
	s.hub.poke() // the bridge may have attached the tab since the offer
	return ok(c)
}

func (s *Server) setHolder(tab string) {
	s.mu.Lock()
	changed := s.holder != tab
	s.holder = tab
	s.mu.Unlock()
	if changed {
		s.hub.poke()
	}
}

// closeTab is POST /webrtc/close (sendBeacon when the page goes away): the
// bridge drops the connection that page made at once instead of waiting
// for ICE to time out. The beacon names the connection (conn, from the
// offer's answer), not just the tab: a reloaded page keeps its tab id, and
// the old page's beacon may arrive after the new page connected; it must
// not close the new page's audio (webrtc_reload_test.go).
func (s *Server) closeTab(c fiber.Ctx) error {
	tab, conn := c.FormValue("tab"), c.FormValue("conn")
	if b, ok := s.cfg.Bridge.(interface{ Close(tabID string) }); ok && tabID.MatchString(tab) {
		if s.rtc.end(tab, conn, b.Close) {
			s.hub.poke()
		}
	}
	return ok(c)
}
