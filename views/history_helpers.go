package views

import (
	"net/url"
	"strconv"

	"github.com/softphone/softphone/store"
)

func entryWho(e store.HistoryEntry) string {
	switch {
	case e.Name != "" && e.Number != "":
		return e.Name + " (" + e.Number + ")"
	case e.Number != "":
		return e.Number
	case e.URI != "":
		return e.URI
	}
	return e.Name
}

func has(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func findTax(tax []store.TaxonomyEntry, code string) (store.TaxonomyEntry, bool) {
	for _, t := range tax {
		if t.Code == code {
			return t, true
		}
	}
	return store.TaxonomyEntry{}, false
}

// pageURL keeps the filters when paging.
func pageURL(d HistoryData, page int) string {
	v := url.Values{}
	if d.Filter.Missed {
		v.Set("missed", "1")
	}
	if d.Filter.Declined {
		v.Set("declined", "1")
	}
	if d.Filter.AccountID != "" {
		v.Set("account", d.Filter.AccountID)
	}
	if d.Filter.Text != "" {
		v.Set("q", d.Filter.Text)
	}
	if page > 0 {
		v.Set("page", strconv.Itoa(page))
	}
	if len(v) == 0 {
		return "/history"
	}
	return "/history?" + v.Encode()
}
