package store

import (
	"context"
	"errors"
	"reflect"
	"testing"
)

func TestTaxonomySeeded(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	list, err := db.ListTaxonomy(ctx)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	lastKind := 0
	order := map[string]int{"category": 0, "tag": 1, "red_flag": 2}
	for _, e := range list {
		kinds[e.Kind]++
		if order[e.Kind] < lastKind {
			t.Errorf("%s (%s) out of kind order", e.Code, e.Kind)
		}
		lastKind = order[e.Kind]
		for _, l := range []string{"en", "de"} {
			if e.Titles[l] == "" || e.Descriptions[l] == "" {
				t.Errorf("%s has no %s title or description", e.Code, l)
			}
		}
		if err := validTaxonomy(e); err != nil {
			t.Errorf("seed entry invalid: %v", err)
		}
		if e.Retired {
			t.Errorf("%s is retired in the seed", e.Code)
		}
	}
	if kinds["category"] == 0 || kinds["tag"] == 0 || kinds["red_flag"] == 0 {
		t.Fatalf("seed kinds = %v, want all three", kinds)
	}
	lt, err := db.GetTaxonomy(ctx, "legal-threat")
	if err != nil {
		t.Fatal(err)
	}
	if lt.Severity != "high" || !contains(lt.Triggers, "lawyer") || lt.Titles["de"] == "" {
		t.Fatalf("legal-threat = %+v", lt)
	}
	c, _ := db.GetTaxonomy(ctx, "cancellation")
	if !contains(c.Triggers, "cancel my contract") {
		t.Fatalf("cancellation triggers = %v", c.Triggers)
	}
}

func TestTaxonomyCRUD(t *testing.T) {
	ctx := context.Background()
	db := openTestDB(t)
	e := TaxonomyEntry{Code: "churn-risk", Kind: "red_flag", Severity: "medium",
		Titles:       map[string]string{"en": "Churn risk", "de": "Abwanderungsgefahr"},
		Descriptions: map[string]string{"en": "May leave.", "de": "Könnte gehen."},
		Triggers:     []string{"competitor"}}
	if err := db.CreateTaxonomy(ctx, e); err != nil {
		t.Fatal(err)
	}
	if err := db.CreateTaxonomy(ctx, e); !errors.Is(err, ErrExists) {
		t.Fatalf("duplicate: %v, want ErrExists", err)
	}
	got, err := db.GetTaxonomy(ctx, e.Code)
	if err != nil || !reflect.DeepEqual(got, e) {
		t.Fatalf("GetTaxonomy = %+v, %v; want %+v", got, err, e)
	}
	list, _ := db.ListTaxonomy(ctx)
	if last := list[len(list)-1]; last.Code != e.Code {
		t.Fatalf("new red flag should come last, got %s", last.Code)
	}

	for name, bad := range map[string]TaxonomyEntry{
		"code":     {Code: "Bad Code", Kind: "tag", Titles: map[string]string{"en": "x"}},
		"kind":     {Code: "x", Kind: "flag", Titles: map[string]string{"en": "x"}},
		"severity": {Code: "x", Kind: "red_flag", Severity: "huge", Titles: map[string]string{"en": "x"}},
		"triggers": {Code: "x", Kind: "tag", Triggers: []string{"a"}, Titles: map[string]string{"en": "x"}},
		"title":    {Code: "x", Kind: "tag", Titles: map[string]string{"de": "x"}},
	} {
		if err := db.CreateTaxonomy(ctx, bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("bad %s: %v, want ErrInvalid", name, err)
		}
	}

	e.Severity = "high"
	e.Titles = map[string]string{"en": "Churn"}
	e.Descriptions = map[string]string{}
	e.Triggers = []string{"competitor", "switch provider"}
	if err := db.UpdateTaxonomy(ctx, e); err != nil {
		t.Fatal(err)
	}
	got, _ = db.GetTaxonomy(ctx, e.Code)
	if !reflect.DeepEqual(got, e) {
		t.Fatalf("after update %+v, want %+v", got, e)
	}
	if err := db.UpdateTaxonomy(ctx, TaxonomyEntry{Code: "nope", Kind: "tag", Titles: map[string]string{"en": "x"}}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("update unknown: %v, want ErrNotFound", err)
	}

	if err := db.RetireTaxonomy(ctx, e.Code); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.GetTaxonomy(ctx, e.Code); !got.Retired {
		t.Fatal("not retired")
	}
	if err := db.RetireTaxonomy(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("retire unknown: %v", err)
	}
	if _, err := db.GetTaxonomy(ctx, "nope"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("get unknown: %v", err)
	}
}
