package web

import (
	"encoding/json"
	"strconv"

	"github.com/gofiber/fiber/v3"
	"github.com/softphone/softphone/store"
)

type prefReq struct {
	Key   string `json:"key"`
	Value string `json:"value"`
	Theme string `json:"theme"`
}

// audioPref is POST /audio {key, value}: a device or volume chosen on the
// phone page, saved at once.
func (s *Server) audioPref(c fiber.Ctx) error {
	var r prefReq
	if err := json.Unmarshal(c.Body(), &r); err != nil {
		return s.fail(c, fiber.StatusBadRequest, "bad request")
	}
	_, err := s.cfg.Settings.Update(func(st *store.Settings) error {
		a := &st.Audio
		switch r.Key {
		case "microphone":
			a.Microphone = r.Value
		case "speaker":
			a.Speaker = r.Value
		case "ringer":
			a.Ringer = r.Value
		case "mic_volume", "speaker_volume", "ringer_volume":
			v, err := strconv.Atoi(r.Value)
			if err != nil || v < 0 || v > 100 {
				return errBadVolume
			}
			*map[string]*int{"mic_volume": &a.MicVolume, "speaker_volume": &a.SpeakerVolume, "ringer_volume": &a.RingerVolume}[r.Key] = v
		default:
			return errUnknownKey
		}
		return nil
	})
	if err != nil {
		return s.fail(c, fiber.StatusBadRequest, err.Error())
	}
	return ok(c)
}

// themePref is POST /appearance/theme {theme}: the switch in the header.
func (s *Server) themePref(c fiber.Ctx) error {
	var r prefReq
	if err := json.Unmarshal(c.Body(), &r); err != nil {
		return s.fail(c, fiber.StatusBadRequest, "bad request")
	}
	switch r.Theme {
	case "light", "dark", "system":
	default:
		return s.fail(c, fiber.StatusBadRequest, "theme: must be light, dark or system")
	}
	if _, err := s.cfg.Settings.Update(func(st *store.Settings) error { st.Appearance.Theme = r.Theme; return nil }); err != nil {
		return s.fail(c, fiber.StatusBadRequest, err.Error())
	}
	return ok(c)
}
