package web

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/softphone/softphone/store"
)

// errNoContacts: the file held no contact we could read.
var errNoContacts = errors.New("no contacts found in the file")

// writeVCards writes contacts as vCard 4.0 (RFC 6350). The line a contact is
// tied to goes into X-SOFTPHONE-ACCOUNT (RFC 6350 6.10 extension property).
func writeVCards(w io.Writer, cs []store.Contact) error {
	for _, c := range cs {
		var b strings.Builder
		b.WriteString("BEGIN:VCARD\r\nVERSION:4.0\r\n")
		fmt.Fprintf(&b, "FN:%s\r\n", vEscape(c.Name))
		fmt.Fprintf(&b, "TEL;VALUE=uri:%s\r\n", telURI(c.Number))
		if c.AccountID != "" {
			fmt.Fprintf(&b, "X-SOFTPHONE-ACCOUNT:%s\r\n", vEscape(c.AccountID))
		}
		b.WriteString("END:VCARD\r\n")
		if _, err := io.WriteString(w, b.String()); err != nil {
			return err
		}
	}
	return nil
}

func telURI(n string) string {
	if strings.Contains(n, ":") || strings.Contains(n, "@") {
		return n
	}
	return "tel:" + n
}

func vEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, ",", `\,`, ";", `\;`, "\n", `\n`, "\r", "").Replace(s)
}

func vUnescape(s string) string {
	return strings.NewReplacer(`\\`, `\`, `\,`, ",", `\;`, ";", `\n`, "\n", `\N`, "\n").Replace(s)
}

// vcardMaxLine is the longest line of a vCard file read (a photo inline
// can be long); a longer one refuses the file.
const vcardMaxLine = 1 << 20

// readVCards reads vCards 2.1/3.0/4.0: FN (or N) and the first TEL of each.
// Folded lines (RFC 6350 3.2) are unfolded; other properties are ignored.
func readVCards(r io.Reader) ([]store.Contact, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), vcardMaxLine)
	var lines []string
	for sc.Scan() {
		l := strings.TrimRight(sc.Text(), "\r")
		if (strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t")) && len(lines) > 0 {
			lines[len(lines)-1] += l[1:]
			continue
		}
		lines = append(lines, l)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read vCard: %w", err)
	}
	var out []store.Contact
	var cur *store.Contact
	var n string
	for _, l := range lines {
		name, value, ok := strings.Cut(l, ":")
		if !ok {
			continue
		}
		prop := strings.ToUpper(strings.SplitN(name, ";", 2)[0])
		if i := strings.LastIndexByte(prop, '.'); i >= 0 { // group prefix: item1.TEL
			prop = prop[i+1:]
		}
		switch {
		case prop == "BEGIN" && strings.EqualFold(value, "VCARD"):
			cur, n = &store.Contact{}, ""
		case cur == nil:
		case prop == "FN":
			cur.Name = vUnescape(value)
		case prop == "N":
			parts := strings.Split(value, ";")
			if len(parts) > 1 {
				n = strings.TrimSpace(vUnescape(parts[1]) + " " + vUnescape(parts[0]))
			}
		case prop == "TEL" && cur.Number == "":
			cur.Number = normalizeNumber(value)
		case prop == "X-SOFTPHONE-ACCOUNT":
			cur.AccountID = vUnescape(value)
		case prop == "END" && strings.EqualFold(value, "VCARD"):
			if cur.Name == "" {
				cur.Name = n
			}
			if cur.Number != "" {
				out = append(out, *cur)
			}
			cur = nil
		}
	}
	if len(out) == 0 {
		return nil, errNoContacts
	}
	return out, nil
}

// csvHeader is the first row of exported CSV; import takes these columns in
// any order (and "phone"/"tel" for number), or name,number without a header.
var csvHeader = []string{"name", "number", "account_id"}

func writeCSV(w io.Writer, cs []store.Contact) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(csvHeader); err != nil {
		return err
	}
	for _, c := range cs {
		// A leading = + - @ would be a formula in a spreadsheet (CSV injection).
		if err := cw.Write([]string{noFormula(c.Name), c.Number, c.AccountID}); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func noFormula(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

func readCSV(r io.Reader) ([]store.Contact, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	rows, err := cr.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("read CSV: %w", err)
	}
	col := map[string]int{"name": 0, "number": 1, "account_id": -1}
	if len(rows) > 0 {
		head := map[string]int{}
		for i, h := range rows[0] {
			head[strings.ToLower(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")))] = i
		}
		if _, ok := head["name"]; ok {
			col["name"] = head["name"]
			col["number"], col["account_id"] = -1, -1
			for _, k := range []string{"number", "phone", "tel", "telephone"} {
				if i, ok := head[k]; ok {
					col["number"] = i
					break
				}
			}
			if i, ok := head["account_id"]; ok {
				col["account_id"] = i
			}
			rows = rows[1:]
		}
	}
	get := func(row []string, k string) string {
		if i := col[k]; i >= 0 && i < len(row) {
			return strings.TrimSpace(row[i])
		}
		return ""
	}
	var out []store.Contact
	for _, row := range rows {
		c := store.Contact{Name: strings.TrimPrefix(get(row, "name"), "'"), Number: normalizeNumber(get(row, "number")), AccountID: get(row, "account_id")}
		if c.Number != "" {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return nil, errNoContacts
	}
	return out, nil
}
