package audio

import (
	"sort"
	"strings"
	"unicode"
)

// Trigger is a red-flag taxonomy entry's phrases (store.TaxonomyEntry.Triggers).
type Trigger struct {
	Code    string
	Phrases []string
}

// MatchTriggers returns the codes (sorted, once each) whose phrases occur in
// the transcript, case-insensitive, on word boundaries, also across the
// segment boundaries of one speaker.
func MatchTriggers(segments []Segment, triggers []Trigger) []string {
	bySpeaker := map[string][]string{}
	for _, s := range segments {
		bySpeaker[s.Speaker] = append(bySpeaker[s.Speaker], s.Text)
	}
	var texts []string
	for _, parts := range bySpeaker {
		texts = append(texts, " "+normalise(strings.Join(parts, " "))+" ")
	}
	seen := map[string]bool{}
	var codes []string
	for _, tr := range triggers {
		for _, p := range tr.Phrases {
			np := normalise(p)
			if np == "" || seen[tr.Code] {
				continue
			}
			for _, t := range texts {
				if strings.Contains(t, " "+np+" ") {
					seen[tr.Code] = true
					codes = append(codes, tr.Code)
					break
				}
			}
		}
	}
	sort.Strings(codes)
	return codes
}

// normalise lowercases and turns everything but letters and digits into
// single spaces ("Cancel my  contract!" -> "cancel my contract").
func normalise(s string) string {
	f := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '\''
	})
	return strings.Join(f, " ")
}
