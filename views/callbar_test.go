package views

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
)

// The live-call bar morphs in place (idiomorph matches elements by id), so
// every element a person acts on carries an id, ids are unique across the
// calls, and the Hold/Resume button keeps one id in both states (its focus
// survives the swap).
func TestCallBarStableIDs(t *testing.T) {
	calls := []CallView{
		{ID: "a1", State: "active", Number: "bob", Name: "Bob", Direction: "in"},
		{ID: "b2", State: "hold", Number: "carol", Direction: "out"},
		{ID: "c3", State: "ringing-in", Number: "dave", Direction: "in"},
	}
	var buf bytes.Buffer
	if err := CallsList(L("en"), calls).Render(context.Background(), &buf); err != nil {
		t.Fatal(err)
	}
	html := buf.String()
	seen := map[string]bool{}
	for _, m := range regexp.MustCompile(` id="([^"]+)"`).FindAllStringSubmatch(html, -1) {
		if seen[m[1]] {
			t.Errorf("id %q twice", m[1])
		}
		seen[m[1]] = true
	}
	for _, tag := range regexp.MustCompile(`<(button|summary|input|select|details|article)\b[^>]*>`).FindAllString(html, -1) {
		if !strings.Contains(tag, ` id="`) {
			t.Errorf("no id: %s", tag)
		}
	}
	for _, want := range []string{"call-a1-hold", "call-b2-hold", "call-c3-answer", "call-c3-decline", "call-a1-dtmf-hash", "xfer-a1", "calls-conference"} {
		if !seen[want] {
			t.Errorf("missing id %q", want)
		}
	}
	if !strings.Contains(html, `id="call-b2-hold" data-action="resume"`) {
		t.Error("the held call's Resume button is not call-b2-hold")
	}
	if seen["call-c3-keypad"] {
		t.Error("a ringing call offers the keypad")
	}
}
