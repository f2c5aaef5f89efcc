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
	answer, err := s.cfg.Bridge.Offer(ctx, req.Tab, req.SDP)
	if err != nil {
		s.log.Warn("web: webrtc offer", "tab", req.Tab, "err", err)
		return c.Status(fiber.StatusBadGateway).JSON(fiber.Map{"error": "the audio bridge refused the offer"})
	}
	s.setHolder(req.Tab)
	return c.JSON(fiber.Map{"sdp": answer, "type": "answer"})
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

// closeTab is POST /webrtc/close (sendBeacon when the tab goes away): the
// bridge drops the tab at once instead of waiting for ICE to time out.
func (s *Server) closeTab(c fiber.Ctx) error {
	tab := c.FormValue("tab")
	if b, ok := s.cfg.Bridge.(interface{ Close(tabID string) }); ok && tabID.MatchString(tab) {
		b.Close(tab)
		s.hub.poke()
	}
	return ok(c)
}
