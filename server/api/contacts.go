package api

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gofiber/fiber/v3"
	"github.com/softphone/softphone/store"
)

// contactJSON is rest-api.md "Contact". account is the line as
// <username>@<domain>; both account fields are "" for a contact tied to no line.
type contactJSON struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Number    string `json:"number"`
	AccountID string `json:"account_id"`
	Account   string `json:"account"`
	// Issue 19: watched contacts' line (idle, ringing, busy, unknown) and
	// presence (available, away, busy, dnd, offline, unknown).
	Watch     bool   `json:"watch"`
	LineState string `json:"line_state"`
	Presence  string `json:"presence"`
}

func (s *Server) toContactJSON(c store.Contact) contactJSON {
	st := s.cfg.Phone.ContactState(c.ID)
	out := contactJSON{ID: c.ID, Name: c.Name, Number: c.Number, AccountID: c.AccountID,
		Watch: c.Watch, LineState: st.LineState, Presence: st.Presence}
	if a, ok := findAccount(s.cur.Load().Accounts, c.AccountID); ok {
		out.Account = lineName(a)
	}
	return out
}

// listContacts: GET /contacts (optional ?q= filter on name and number).
func (s *Server) listContacts(c fiber.Ctx) error {
	cs, err := s.cfg.DB.ListContacts(c.Context(), strings.Clone(c.Query("q")))
	if err != nil {
		return err
	}
	out := make([]contactJSON, 0, len(cs))
	for _, ct := range cs {
		out = append(out, s.toContactJSON(ct))
	}
	return c.JSON(out)
}

func (s *Server) contact(c fiber.Ctx) (store.Contact, error) {
	ct, err := s.cfg.DB.GetContact(c.Context(), param(c, "id"))
	if errors.Is(err, store.ErrNotFound) {
		return ct, fail(fiber.StatusNotFound, msgNoContact)
	}
	return ct, err
}

// getContact: GET /contacts/{id}; unknown id: 404 "no contact with that id".
func (s *Server) getContact(c fiber.Ctx) error {
	ct, err := s.contact(c)
	if err != nil {
		return err
	}
	return c.JSON(s.toContactJSON(ct))
}

type contactBody struct {
	Name      *string `json:"name"`
	Number    *string `json:"number"`
	AccountID *string `json:"account_id"`
	Watch     *bool   `json:"watch"`
}

func (s *Server) applyContact(ct *store.Contact, b contactBody) error {
	if b.Name != nil {
		ct.Name = strings.TrimSpace(*b.Name)
	}
	if b.Number != nil {
		ct.Number = strings.TrimSpace(*b.Number)
	}
	if b.AccountID != nil {
		ct.AccountID = *b.AccountID
	}
	if b.Watch != nil {
		ct.Watch = *b.Watch
	}
	if ct.Number == "" {
		return fail(fiber.StatusBadRequest, "a contact needs a number")
	}
	if ct.AccountID != "" {
		if !isUUID(ct.AccountID) {
			return fail(fiber.StatusBadRequest, msgBadAccountID)
		}
		if _, ok := findAccount(s.cur.Load().Accounts, ct.AccountID); !ok {
			return fail(fiber.StatusBadRequest, msgNoAccount)
		}
	}
	return nil
}

// createContact: POST /contacts (token), 201 with the contact.
func (s *Server) createContact(c fiber.Ctx) error {
	var b contactBody
	if err := decode(c, &b); err != nil {
		return err
	}
	var ct store.Contact
	if err := s.applyContact(&ct, b); err != nil {
		return err
	}
	ct, err := s.cfg.DB.CreateContact(c.Context(), ct)
	if err != nil {
		return storeError(err)
	}
	c.Set(fiber.HeaderLocation, "/contacts/"+ct.ID)
	return created(c, s.toContactJSON(ct))
}

// updateContact: PUT /contacts/{id} (token): the fields given change.
func (s *Server) updateContact(c fiber.Ctx) error {
	ct, err := s.contact(c)
	if err != nil {
		return err
	}
	var b contactBody
	if err := decode(c, &b); err != nil {
		return err
	}
	if err := s.applyContact(&ct, b); err != nil {
		return err
	}
	ct, err = s.cfg.DB.UpdateContact(c.Context(), ct)
	if errors.Is(err, store.ErrNotFound) {
		// Deleted since the lookup (the page, another client): an unknown
		// id, in the spec's words, not the store's.
		return fail(fiber.StatusNotFound, msgNoContact)
	}
	if err != nil {
		return storeError(err)
	}
	return c.JSON(s.toContactJSON(ct))
}

// deleteContact: DELETE /contacts/{id} (token), 204.
func (s *Server) deleteContact(c fiber.Ctx) error {
	if _, err := s.contact(c); err != nil {
		return err
	}
	if err := s.cfg.DB.DeleteContact(c.Context(), param(c, "id")); errors.Is(err, store.ErrNotFound) {
		return fail(fiber.StatusNotFound, msgNoContact) // deleted since the lookup
	} else if err != nil {
		return storeError(err)
	}
	return c.SendStatus(fiber.StatusNoContent)
}

// storeError turns the store's refusals into 400s with their message (they
// name the field); a full disk says so (it was "internal error": neither
// the cause nor what to do; the status stays 500, as rest-api.md's error
// table has no row for it); everything else stays an internal error.
func storeError(err error) error {
	switch {
	case store.IsDiskFull(err):
		return fmt.Errorf("%w (%w)", fail(fiber.StatusInternalServerError, msgDiskFull), err)
	case errors.Is(err, store.ErrInvalid), errors.Is(err, store.ErrUnknownCode), errors.Is(err, store.ErrSettings):
		return fail(fiber.StatusBadRequest, err.Error())
	case errors.Is(err, store.ErrExists):
		return fail(fiber.StatusConflict, err.Error())
	case errors.Is(err, store.ErrNotFound):
		return fail(fiber.StatusNotFound, err.Error())
	}
	return err
}
