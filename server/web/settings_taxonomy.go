package web

import (
	"regexp"
	"strings"

	"github.com/gofiber/fiber/v3"
	"github.com/softphone/softphone/store"
	"github.com/softphone/softphone/views"
)

var taxCode = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// saveTaxonomy is POST /settings/taxonomy: a new entry, or edit=1 changes one.
func (s *Server) saveTaxonomy(c fiber.Ctx) error {
	if s.cfg.DB == nil {
		return s.fail(c, fiber.StatusServiceUnavailable, s.lang().T("err.nodb"))
	}
	l := s.lang()
	errs := views.Errors{}
	t := store.TaxonomyEntry{
		Code: strings.TrimSpace(c.FormValue("code")), Kind: c.FormValue("kind"), Severity: c.FormValue("severity"),
		Titles: map[string]string{}, Descriptions: map[string]string{}, Triggers: listComma(c.FormValue("triggers")),
	}
	for _, lang := range views.Languages {
		if v := strings.TrimSpace(c.FormValue("title_" + lang)); v != "" {
			t.Titles[lang] = v
		}
		if v := strings.TrimSpace(c.FormValue("description_" + lang)); v != "" {
			t.Descriptions[lang] = v
		}
	}
	edit := c.FormValue("edit") == "1"
	if !taxCode.MatchString(t.Code) {
		errs["code"] = l.T("err.code")
	}
	switch t.Kind {
	case "category", "tag":
		t.Severity = ""
	case "red_flag":
		if t.Severity == "" {
			errs["severity"] = l.T("err.severity")
		}
	default:
		errs["kind"] = l.F("err.oneof", "category, tag, red_flag")
	}
	if t.Titles["en"] == "" {
		errs["title_en"] = l.T("err.required")
	}
	if len(errs) == 0 {
		var err error
		if edit {
			old, gerr := s.cfg.DB.GetTaxonomy(c.Context(), t.Code)
			if gerr == nil {
				t.Retired = old.Retired
			}
			err = s.cfg.DB.UpdateTaxonomy(c.Context(), t)
		} else {
			err = s.cfg.DB.CreateTaxonomy(c.Context(), t)
		}
		if err != nil {
			errs["_taxonomy"] = s.storeWords(err, "taxonomy.gone")
		}
	}
	d := s.settingsData(c)
	if len(errs) > 0 {
		d.Errors, d.EditTax = errs, t
		if !edit {
			d.EditTax.Code = ""
		}
		return s.renderSettings(c, d, fiber.StatusUnprocessableEntity)
	}
	d.Saved = "taxonomy"
	return s.renderSettings(c, d, fiber.StatusOK)
}

// retireTaxonomy is POST /settings/taxonomy/:code/retire: kept for old calls,
// no longer offered for new tags.
func (s *Server) retireTaxonomy(c fiber.Ctx) error {
	if err := s.cfg.DB.RetireTaxonomy(c.Context(), c.Params("code")); err != nil {
		return s.fail(c, fiber.StatusBadRequest, s.storeWords(err, "taxonomy.gone"))
	}
	d := s.settingsData(c)
	d.Saved = "taxonomy"
	return s.renderSettings(c, d, fiber.StatusOK)
}

func listComma(s string) []string {
	out := []string{}
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
