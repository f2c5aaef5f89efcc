package web

import (
	"bufio"
	"encoding/csv"
	"errors"

	"github.com/softphone/softphone/store"
	"github.com/softphone/softphone/views"
)

// storeWords words a refusal of the store (a history entry's tags or note,
// a taxonomy entry saved or retired, a contact saved) in the page's language: the store's errors are English
// and technical ("tags of history entry "x": not found"), and were shown as
// they were, on German pages too. gone is the key for an id that does not
// exist (any more); what it does not know is "that did not work", and the
// log keeps the error.
func (s *Server) storeWords(err error, gone string) string {
	l := s.lang()
	switch {
	case errors.Is(err, store.ErrNotFound):
		return l.T(gone)
	case errors.Is(err, store.ErrUnknownCode):
		return l.T("store.unknowncode")
	case errors.Is(err, store.ErrExists):
		return l.T("store.exists")
	}
	s.log.Warn("web: not saved", "err", err)
	return l.T("acterr.other")
}

// importWords words why a contacts file could not be read, in the page's
// language: the readers' errors are English and technical ("read vCard:
// bufio.Scanner: token too long").
func importWords(l views.L, err error) string {
	var pe *csv.ParseError
	switch {
	case errors.Is(err, errNoContacts):
		return l.T("import.nocontacts")
	case errors.Is(err, bufio.ErrTooLong):
		return l.F("import.toolong", vcardMaxLine>>20)
	case errors.As(err, &pe):
		return l.F("import.csvline", pe.Line)
	}
	return l.T("import.unreadable")
}

// resendWords words why a delivery of the log was not sent again, in the
// page's language: the sender's error was shown as it was, the delivery id
// and half in German on a German page ("resend <id>: nicht gefunden"). What
// it does not know is "that did not work", and the log keeps the error.
func (s *Server) resendWords(err error) string {
	l := s.lang()
	switch {
	case errors.Is(err, store.ErrNotFound):
		return l.T("webhook.resend.gone")
	case errors.Is(err, store.ErrWebhooksOff):
		return l.T("webhook.resend.off")
	case errors.Is(err, store.ErrOutboxFull):
		return l.T("webhook.resend.full")
	}
	s.log.Warn("web: delivery not sent again", "err", err)
	return l.T("acterr.other")
}
