package web

import (
	"bytes"
	"errors"
	"io"
	"strings"

	"github.com/gofiber/fiber/v3"
	"github.com/softphone/softphone/store"
	"github.com/softphone/softphone/views"
)

// contactsPage is GET /contacts (?q= searches, ?edit=<id> or ?edit=new opens the form).
func (s *Server) contactsPage(c fiber.Ctx) error {
	if s.cfg.DB == nil {
		return s.fail(c, fiber.StatusServiceUnavailable, s.lang().T("err.nodb"))
	}
	d := views.ContactsData{Query: c.Query("q"), Accounts: s.accountViews()}
	if id := c.Query("edit"); id != "" && id != "new" {
		ct, err := s.cfg.DB.GetContact(c.Context(), id)
		if err != nil {
			return s.fail(c, fiber.StatusNotFound, s.lang().T("err.nocontact"))
		}
		d.Edit = ct
	}
	return s.renderContacts(c, d, fiber.StatusOK)
}

func (s *Server) renderContacts(c fiber.Ctx, d views.ContactsData, status int) error {
	list, err := s.cfg.DB.ListContacts(c.Context(), d.Query)
	if err != nil {
		return err
	}
	d.Contacts = list
	d.Lines = s.lineStates(list)
	d.Lamps = s.lampViews(c.Context())
	if d.Accounts == nil {
		d.Accounts = s.accountViews()
	}
	return s.render(c.Status(status), views.ContactsPage(s.fullPage(c, "contacts"), d))
}

// saveContact is POST /contacts (new) and POST /contacts/:id (edit).
func (s *Server) saveContact(c fiber.Ctx) error {
	l := s.lang()
	ct := store.Contact{ID: c.Params("id"), Name: strings.TrimSpace(c.FormValue("name")),
		Number: normalizeNumber(c.FormValue("number")), AccountID: c.FormValue("account_id"), Watch: checked(c, "watch")}
	errs := views.Errors{}
	if ct.Name == "" {
		errs["name"] = l.T("err.required")
	}
	if ct.Number == "" {
		errs["number"] = l.T("err.required")
	}
	if ct.AccountID != "" && !s.knownAccount(ct.AccountID) {
		errs["account_id"] = l.T("err.noaccount")
	}
	if len(errs) > 0 {
		return s.renderContacts(c, views.ContactsData{Edit: ct, Errors: errs}, fiber.StatusUnprocessableEntity)
	}
	var err error
	if ct.ID == "" {
		_, err = s.cfg.DB.CreateContact(c.Context(), ct)
	} else {
		_, err = s.cfg.DB.UpdateContact(c.Context(), ct)
	}
	if err != nil {
		return s.renderContacts(c, views.ContactsData{Edit: ct, Errors: views.Errors{"name": s.storeWords(err, "contact.gone")}}, fiber.StatusUnprocessableEntity)
	}
	return s.redirect(c, "/contacts")
}

func (s *Server) knownAccount(id string) bool {
	for _, a := range s.cfg.Settings.Get().Accounts {
		if a.ID == id {
			return true
		}
	}
	return false
}

// deleteContact is POST /contacts/:id/delete.
func (s *Server) deleteContact(c fiber.Ctx) error {
	if err := s.cfg.DB.DeleteContact(c.Context(), c.Params("id")); err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	return s.redirect(c, "/contacts")
}

// exportContacts is GET /contacts/export.vcf and /contacts/export.csv.
func (s *Server) exportContacts(c fiber.Ctx) error {
	format := c.Params("format")
	if format != "vcf" && format != "csv" {
		return fiber.ErrNotFound
	}
	list, err := s.cfg.DB.ListContacts(c.Context(), "")
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if format == "csv" {
		err = writeCSV(&buf, list)
		c.Set("Content-Type", "text/csv; charset=utf-8")
	} else {
		err = writeVCards(&buf, list)
		c.Set("Content-Type", "text/vcard; charset=utf-8")
	}
	if err != nil {
		return err
	}
	c.Set("Content-Disposition", `attachment; filename="contacts.`+format+`"`)
	return c.Send(buf.Bytes())
}

// importMax bounds a contacts file (views.ImportMax).
const importMax = views.ImportMax

// importContacts is POST /contacts/import: a .vcf or .csv file.
func (s *Server) importContacts(c fiber.Ctx) error {
	l := s.lang()
	bad := func(msg string) error {
		return s.renderContacts(c, views.ContactsData{Errors: views.Errors{"file": msg}}, fiber.StatusUnprocessableEntity)
	}
	fh, err := c.FormFile("file")
	if err != nil {
		return bad(l.T("err.nofile"))
	}
	// A file over importMax is refused whole: it was cut at 4 MiB in
	// silence, and the contacts past the cut were not imported (or the cut
	// one came in broken) while the page said "n imported".
	if fh.Size > importMax {
		return bad(l.F("import.toobig", importMax>>20))
	}
	f, err := fh.Open()
	if err != nil {
		return bad(err.Error())
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, importMax+1))
	if err != nil {
		return bad(err.Error())
	}
	if len(data) > importMax {
		return bad(l.F("import.toobig", importMax>>20))
	}
	var list []store.Contact
	if bytes.Contains(bytes.ToUpper(data[:min(len(data), 4096)]), []byte("BEGIN:VCARD")) {
		list, err = readVCards(bytes.NewReader(data))
	} else {
		list, err = readCSV(bytes.NewReader(data))
	}
	if err != nil {
		return bad(importWords(l, err))
	}
	// A contact the store refuses (a full disk, a failing one) is counted
	// and the page says how many were not imported: they were skipped in
	// silence, so the page said "n imported" for part of the file, and
	// nothing at all when none could be saved.
	n, failed, full := 0, 0, false
	for _, ct := range list {
		if ct.AccountID != "" && !s.knownAccount(ct.AccountID) {
			ct.AccountID = ""
		}
		if _, err := s.cfg.DB.CreateContact(c.Context(), ct); err != nil {
			if failed == 0 {
				s.log.Warn("web: contact not imported", "err", err)
			}
			failed, full = failed+1, full || store.IsDiskFull(err)
			continue
		}
		n++
	}
	if failed > 0 {
		why := l.F("import.notsaved", failed, len(list))
		if full {
			why = l.F("import.notsaved.disk", failed, len(list))
		}
		return s.renderContacts(c, views.ContactsData{Imported: n, Errors: views.Errors{"file": why}}, fiber.StatusServiceUnavailable)
	}
	return s.renderContacts(c, views.ContactsData{Imported: n}, fiber.StatusOK)
}

// redirect sends the browser on after a form: htmx follows HX-Location
// without a reload, a plain form gets a 303.
func (s *Server) redirect(c fiber.Ctx, to string) error {
	if isHTMX(c) {
		c.Set("HX-Location", `{"path":"`+to+`","target":"body"}`)
		return ok(c)
	}
	return c.Redirect().Status(fiber.StatusSeeOther).To(to)
}
