package api

import (
	"errors"
	"strings"

	"github.com/gofiber/fiber/v3"
	"github.com/softphone/softphone/store"
)

// taxonomyJSON is rest-api.md "Taxonomy entry": title and description in the
// phone's interface language (appearance.language, falling back to English);
// severity only for red flags.
type taxonomyJSON struct {
	Code        string `json:"code"`
	Kind        string `json:"kind"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Severity    string `json:"severity,omitempty"`
	Retired     bool   `json:"retired"`
}

func inLanguage(m map[string]string, lang string) string {
	if v, ok := m[lang]; ok {
		return v
	}
	if v, ok := m["en"]; ok {
		return v
	}
	for _, v := range m {
		return v
	}
	return ""
}

func (s *Server) toTaxonomyJSON(e store.TaxonomyEntry) taxonomyJSON {
	lang := s.cur.Load().Appearance.Language
	out := taxonomyJSON{Code: e.Code, Kind: e.Kind, Title: inLanguage(e.Titles, lang),
		Description: inLanguage(e.Descriptions, lang), Retired: e.Retired}
	if e.Kind == "red_flag" {
		out.Severity = e.Severity
	}
	return out
}

// listTaxonomy: GET /taxonomy, retired entries included (marked).
func (s *Server) listTaxonomy(c fiber.Ctx) error {
	es, err := s.cfg.DB.ListTaxonomy(c.Context())
	if err != nil {
		return err
	}
	out := make([]taxonomyJSON, 0, len(es))
	for _, e := range es {
		out = append(out, s.toTaxonomyJSON(e))
	}
	return c.JSON(out)
}

// taxonomyBody: title/description set the text in the current language;
// titles/descriptions set several languages at once.
type taxonomyBody struct {
	Code         *string           `json:"code"`
	Kind         *string           `json:"kind"`
	Severity     *string           `json:"severity"`
	Title        *string           `json:"title"`
	Description  *string           `json:"description"`
	Titles       map[string]string `json:"titles"`
	Descriptions map[string]string `json:"descriptions"`
	Triggers     *[]string         `json:"triggers"`
}

func (s *Server) applyTaxonomy(e *store.TaxonomyEntry, b taxonomyBody) {
	lang := s.cur.Load().Appearance.Language
	if lang == "" {
		lang = "en"
	}
	if e.Titles == nil {
		e.Titles = map[string]string{}
	}
	if e.Descriptions == nil {
		e.Descriptions = map[string]string{}
	}
	if b.Kind != nil {
		e.Kind = *b.Kind
	}
	if b.Severity != nil {
		e.Severity = *b.Severity
	}
	for k, v := range b.Titles {
		e.Titles[k] = v
	}
	for k, v := range b.Descriptions {
		e.Descriptions[k] = v
	}
	// English is the fallback language and always needed: a title given
	// in another language stands in for it until one is set.
	if b.Title != nil {
		e.Titles[lang] = *b.Title
		if e.Titles["en"] == "" {
			e.Titles["en"] = *b.Title
		}
	}
	if b.Description != nil {
		e.Descriptions[lang] = *b.Description
		if e.Descriptions["en"] == "" {
			e.Descriptions["en"] = *b.Description
		}
	}
	if b.Triggers != nil {
		e.Triggers = *b.Triggers
	}
}

func (s *Server) taxonomyEntry(c fiber.Ctx) (store.TaxonomyEntry, error) {
	e, err := s.cfg.DB.GetTaxonomy(c.Context(), param(c, "code"))
	if errors.Is(err, store.ErrNotFound) {
		return e, fail(fiber.StatusNotFound, msgNoTaxonomy)
	}
	return e, err
}

func validKind(k string) error {
	switch k {
	case "category", "tag", "red_flag":
		return nil
	}
	return fail(fiber.StatusBadRequest, "kind must be category, tag or red_flag")
}

// createTaxonomy: POST /taxonomy (token), 201.
func (s *Server) createTaxonomy(c fiber.Ctx) error {
	var b taxonomyBody
	if err := decode(c, &b); err != nil {
		return err
	}
	if b.Code == nil || strings.TrimSpace(*b.Code) == "" {
		return fail(fiber.StatusBadRequest, "a taxonomy entry needs a code")
	}
	e := store.TaxonomyEntry{Code: strings.TrimSpace(*b.Code)}
	s.applyTaxonomy(&e, b)
	if err := validKind(e.Kind); err != nil {
		return err
	}
	if err := s.cfg.DB.CreateTaxonomy(c.Context(), e); err != nil {
		return storeError(err)
	}
	return created(c, s.toTaxonomyJSON(e))
}

// updateTaxonomy: PUT /taxonomy/{code} (token): the fields given change; the
// code never does.
func (s *Server) updateTaxonomy(c fiber.Ctx) error {
	e, err := s.taxonomyEntry(c)
	if err != nil {
		return err
	}
	var b taxonomyBody
	if err := decode(c, &b); err != nil {
		return err
	}
	if b.Code != nil && *b.Code != e.Code {
		return fail(fiber.StatusBadRequest, "a taxonomy code never changes")
	}
	s.applyTaxonomy(&e, b)
	if err := validKind(e.Kind); err != nil {
		return err
	}
	if err := s.cfg.DB.UpdateTaxonomy(c.Context(), e); err != nil {
		return storeError(err)
	}
	return c.JSON(s.toTaxonomyJSON(e))
}

// retireTaxonomy: POST /taxonomy/{code}/retire (token): kept for old calls,
// no longer given to new ones.
func (s *Server) retireTaxonomy(c fiber.Ctx) error {
	e, err := s.taxonomyEntry(c)
	if err != nil {
		return err
	}
	if err := s.cfg.DB.RetireTaxonomy(c.Context(), e.Code); err != nil {
		return storeError(err)
	}
	e.Retired = true
	return c.JSON(s.toTaxonomyJSON(e))
}
