package api

import (
	"errors"
	"strconv"

	"github.com/gofiber/fiber/v3"
	"github.com/softphone/softphone/store"
)

// History limits (rest-api.md "GET /history": default 100; the maximum is ours).
const (
	historyDefault = 100
	historyMax     = 1000
)

// historyJSON is rest-api.md "Call history entry", plus call_id, direction,
// times, note, tags and recording_id.
type historyJSON struct {
	ID          string   `json:"id"`
	CallID      string   `json:"call_id"`
	SeanceID    string   `json:"seance_id"`
	Direction   string   `json:"direction"`
	Outcome     string   `json:"outcome"`
	Answered    bool     `json:"answered"`
	DurationS   float64  `json:"duration_s"`
	Number      string   `json:"number"`
	URI         string   `json:"uri"`
	Name        string   `json:"name"`
	Dialed      string   `json:"dialed"`
	Account     string   `json:"account"`
	AccountID   string   `json:"account_id"`
	Reason      string   `json:"reason"`
	AnsweredBy  string   `json:"answered_by"`
	CallstartTS *int64   `json:"callstart_ts"`
	AnswerTS    *int64   `json:"answer_ts"`
	CallendTS   *int64   `json:"callend_ts"`
	Note        string   `json:"note"`
	Tags        []string `json:"tags"`
	RecordingID string   `json:"recording_id"`
	Secure      bool     `json:"secure"` // the media was encrypted (SRTP)
}

func toHistoryJSON(h store.HistoryEntry) historyJSON {
	tags := h.Tags
	if tags == nil {
		tags = []string{}
	}
	return historyJSON{ID: h.ID, CallID: h.CallID, SeanceID: h.SeanceID, Direction: h.Direction, Outcome: h.Outcome,
		Answered: h.Answered, DurationS: h.DurationS, Number: h.Number, URI: h.URI, Name: h.Name, Dialed: h.Dialed,
		Account: h.Account, AccountID: h.AccountID, Reason: h.Reason, AnsweredBy: h.AnsweredBy,
		CallstartTS: ms(h.StartedAt), AnswerTS: ms(h.AnsweredAt), CallendTS: ms(h.EndedAt),
		Note: h.Note, Tags: tags, RecordingID: h.Recording, Secure: h.Secure}
}

func queryBool(c fiber.Ctx, name string) (bool, error) {
	switch c.Query(name) {
	case "", "false", "0":
		return false, nil
	case "true", "1":
		return true, nil
	}
	return false, failf(fiber.StatusBadRequest, msgBadBool, name)
}

// listHistory: GET /history?limit=&missed=&declined=, newest first, a bare
// array of ended calls (a call still in progress is in GET /calls).
// missed=true&declined=true gives the calls that were missed OR declined.
func (s *Server) listHistory(c fiber.Ctx) error {
	limit := historyDefault
	if v := c.Query("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > historyMax {
			return fail(fiber.StatusBadRequest, msgBadLimit)
		}
		limit = n
	}
	missed, err := queryBool(c, "missed")
	if err != nil {
		return err
	}
	declined, err := queryBool(c, "declined")
	if err != nil {
		return err
	}
	return s.sendHistory(c, store.HistoryFilter{Limit: limit, Missed: missed, Declined: declined})
}

func (s *Server) historyEntry(c fiber.Ctx) (store.HistoryEntry, error) {
	h, err := s.cfg.DB.GetHistory(c.Context(), param(c, "id"))
	if errors.Is(err, store.ErrNotFound) {
		return h, fail(fiber.StatusNotFound, msgNoHistory)
	}
	return h, err
}

// getHistory: GET /history/{id}; unknown: 404 "no history entry with that id".
func (s *Server) getHistory(c fiber.Ctx) error {
	h, err := s.historyEntry(c)
	if err != nil {
		return err
	}
	return c.JSON(toHistoryJSON(h))
}

// patchHistory: PATCH /history/{id} (token) with {"note": "...", "tags":
// ["code", ...]}; both optional; tags replace the entry's tags and must be
// taxonomy codes that are not retired.
func (s *Server) patchHistory(c fiber.Ctx) error {
	h, err := s.historyEntry(c)
	if err != nil {
		return err
	}
	var b struct {
		Note *string   `json:"note"`
		Tags *[]string `json:"tags"`
	}
	if err := decode(c, &b); err != nil {
		return err
	}
	// One transaction: a refused tag, or a full disk under the note after the
	// tags were written, keeps nothing (a refused request kept half of itself).
	if b.Tags != nil || b.Note != nil {
		if err := s.cfg.DB.EditHistory(c.Context(), h.ID, b.Note, b.Tags); errors.Is(err, store.ErrNotFound) {
			return fail(fiber.StatusNotFound, msgNoHistory)
		} else if err != nil {
			return storeError(err)
		}
	}
	if h, err = s.historyEntry(c); err != nil {
		return err
	}
	return c.JSON(toHistoryJSON(h))
}
