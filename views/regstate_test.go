package views

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestRegStateSlotBelongsToTheStream: the slot an account's state lives in
// on the Settings page is kept across the swaps of the accounts section
// (hx-preserve), so a save's answer, rendered before the PBX's refusal came
// over the live stream, cannot put the older state back; the stream's
// "regstates" event still finds it by its id.
func TestRegStateSlotBelongsToTheStream(t *testing.T) {
	var page, event bytes.Buffer
	a := AccountView{ID: "a1", State: "registered"}
	if err := RegState(L("en"), a).Render(context.Background(), &page); err != nil {
		t.Fatal(err)
	}
	if err := RegStates(L("en"), []AccountView{a}).Render(context.Background(), &event); err != nil {
		t.Fatal(err)
	}
	if h := page.String(); !strings.Contains(h, `id="regstate-a1"`) || !strings.Contains(h, `hx-preserve="true"`) {
		t.Errorf("the slot is not kept across swaps: %s", h)
	}
	if h := event.String(); !strings.Contains(h, "#regstate-a1") {
		t.Errorf("the stream's event does not target the slot: %s", h)
	}
}
