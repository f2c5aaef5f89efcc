package store

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"gorm.io/gorm"
)

type taxonomyRow struct {
	Code     string `gorm:"primaryKey"`
	Kind     string
	Severity string
	Retired  bool
	Triggers string
	Position int
}

func (taxonomyRow) TableName() string { return "taxonomy" }

type taxonomyTextRow struct {
	Code        string `gorm:"primaryKey"`
	Lang        string `gorm:"primaryKey"`
	Title       string
	Description string
}

func (taxonomyTextRow) TableName() string { return "taxonomy_texts" }

// Taxonomy kinds and red flag severities.
var (
	taxonomyKinds = []string{"category", "tag", "red_flag"}
	severities    = []string{"low", "medium", "high"}
	codePattern   = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)
)

func validTaxonomy(e TaxonomyEntry) error {
	if !codePattern.MatchString(e.Code) {
		return fmt.Errorf("taxonomy code %q: %w: lower-case letters, digits, - and _, at most 64", e.Code, ErrInvalid)
	}
	if !contains(taxonomyKinds, e.Kind) {
		return fmt.Errorf("taxonomy %s kind %q: %w: must be one of %s", e.Code, e.Kind, ErrInvalid, strings.Join(taxonomyKinds, ", "))
	}
	if e.Kind == "red_flag" && !contains(severities, e.Severity) {
		return fmt.Errorf("taxonomy %s severity %q: %w: must be one of %s", e.Code, e.Severity, ErrInvalid, strings.Join(severities, ", "))
	}
	if e.Kind != "red_flag" && (e.Severity != "" || len(e.Triggers) > 0) {
		return fmt.Errorf("taxonomy %s: %w: only red flags have a severity and triggers", e.Code, ErrInvalid)
	}
	if strings.TrimSpace(e.Titles["en"]) == "" {
		return fmt.Errorf("taxonomy %s: %w: an English title is required", e.Code, ErrInvalid)
	}
	return nil
}

func insertTaxonomy(tx *gorm.DB, e TaxonomyEntry, position int) error {
	trig, err := json.Marshal(nonNil(e.Triggers))
	if err != nil {
		return err
	}
	row := taxonomyRow{Code: e.Code, Kind: e.Kind, Severity: e.Severity, Retired: e.Retired, Triggers: string(trig), Position: position}
	if err := tx.Create(&row).Error; err != nil {
		return err
	}
	return writeTaxonomyTexts(tx, e)
}

func writeTaxonomyTexts(tx *gorm.DB, e TaxonomyEntry) error {
	if err := tx.Where("code = ?", e.Code).Delete(&taxonomyTextRow{}).Error; err != nil {
		return err
	}
	langs := map[string]bool{}
	for l := range e.Titles {
		langs[l] = true
	}
	for l := range e.Descriptions {
		langs[l] = true
	}
	for l := range langs {
		t := taxonomyTextRow{Code: e.Code, Lang: l, Title: e.Titles[l], Description: e.Descriptions[l]}
		if err := tx.Create(&t).Error; err != nil {
			return err
		}
	}
	return nil
}

// ListTaxonomy returns every entry, retired ones included: categories, then
// tags, then red flags, each in the order they were created.
func (db *DB) ListTaxonomy(ctx context.Context) ([]TaxonomyEntry, error) {
	var rows []taxonomyRow
	g := db.g.WithContext(ctx)
	if err := g.Order("position, code").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("list taxonomy: %w", err)
	}
	var texts []taxonomyTextRow
	if err := g.Find(&texts).Error; err != nil {
		return nil, fmt.Errorf("list taxonomy texts: %w", err)
	}
	out := make([]TaxonomyEntry, 0, len(rows))
	idx := map[string]int{}
	for _, r := range rows {
		e, err := r.entry()
		if err != nil {
			return nil, err
		}
		idx[r.Code] = len(out)
		out = append(out, e)
	}
	for _, t := range texts {
		if i, ok := idx[t.Code]; ok {
			t.into(&out[i])
		}
	}
	kindOrder := map[string]int{"category": 0, "tag": 1, "red_flag": 2}
	sort.SliceStable(out, func(i, j int) bool { return kindOrder[out[i].Kind] < kindOrder[out[j].Kind] })
	return out, nil
}

// GetTaxonomy returns one entry; ErrNotFound when the code is unknown.
func (db *DB) GetTaxonomy(ctx context.Context, code string) (TaxonomyEntry, error) {
	g := db.g.WithContext(ctx)
	var r taxonomyRow
	if err := g.Where("code = ?", code).Take(&r).Error; err != nil {
		return TaxonomyEntry{}, notFound(err, "taxonomy", code)
	}
	e, err := r.entry()
	if err != nil {
		return TaxonomyEntry{}, err
	}
	var texts []taxonomyTextRow
	if err := g.Where("code = ?", code).Find(&texts).Error; err != nil {
		return TaxonomyEntry{}, fmt.Errorf("taxonomy %q texts: %w", code, err)
	}
	for _, t := range texts {
		t.into(&e)
	}
	return e, nil
}

// CreateTaxonomy adds an entry; ErrExists when the code is taken, ErrInvalid
// for a bad code, kind or severity, or a missing English title.
func (db *DB) CreateTaxonomy(ctx context.Context, e TaxonomyEntry) error {
	if err := validTaxonomy(e); err != nil {
		return err
	}
	return db.g.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var n int64
		if err := tx.Model(&taxonomyRow{}).Where("code = ?", e.Code).Count(&n).Error; err != nil {
			return fmt.Errorf("create taxonomy %q: %w", e.Code, err)
		}
		if n > 0 {
			return fmt.Errorf("create taxonomy %q: %w", e.Code, ErrExists)
		}
		var pos int
		if err := tx.Raw("SELECT COALESCE(MAX(position), 0) + 1 FROM taxonomy").Scan(&pos).Error; err != nil {
			return fmt.Errorf("create taxonomy %q: %w", e.Code, err)
		}
		if err := insertTaxonomy(tx, e, pos); err != nil {
			return fmt.Errorf("create taxonomy %q: %w", e.Code, err)
		}
		return nil
	})
}

// UpdateTaxonomy replaces kind, severity, retired, texts and triggers of an
// existing entry (the code never changes).
func (db *DB) UpdateTaxonomy(ctx context.Context, e TaxonomyEntry) error {
	if err := validTaxonomy(e); err != nil {
		return err
	}
	trig, err := json.Marshal(nonNil(e.Triggers))
	if err != nil {
		return err
	}
	return db.g.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		res := tx.Model(&taxonomyRow{}).Where("code = ?", e.Code).Updates(map[string]any{
			"kind": e.Kind, "severity": e.Severity, "retired": e.Retired, "triggers": string(trig),
		})
		if res.Error != nil {
			return fmt.Errorf("update taxonomy %q: %w", e.Code, res.Error)
		}
		if res.RowsAffected == 0 {
			return fmt.Errorf("update taxonomy %q: %w", e.Code, ErrNotFound)
		}
		if err := writeTaxonomyTexts(tx, e); err != nil {
			return fmt.Errorf("update taxonomy %q: %w", e.Code, err)
		}
		return nil
	})
}

// RetireTaxonomy marks an entry retired: it is kept so older calls still
// resolve, and can no longer be given to a call.
func (db *DB) RetireTaxonomy(ctx context.Context, code string) error {
	res := db.g.WithContext(ctx).Model(&taxonomyRow{}).Where("code = ?", code).Update("retired", true)
	if res.Error != nil {
		return fmt.Errorf("retire taxonomy %q: %w", code, res.Error)
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("retire taxonomy %q: %w", code, ErrNotFound)
	}
	return nil
}

// into sets the texts of one language; empty texts are left out.
func (t taxonomyTextRow) into(e *TaxonomyEntry) {
	if t.Title != "" {
		e.Titles[t.Lang] = t.Title
	}
	if t.Description != "" {
		e.Descriptions[t.Lang] = t.Description
	}
}

func (r taxonomyRow) entry() (TaxonomyEntry, error) {
	e := TaxonomyEntry{Code: r.Code, Kind: r.Kind, Severity: r.Severity, Retired: r.Retired,
		Titles: map[string]string{}, Descriptions: map[string]string{}}
	if err := json.Unmarshal([]byte(r.Triggers), &e.Triggers); err != nil {
		return TaxonomyEntry{}, fmt.Errorf("taxonomy %q triggers: %w", r.Code, err)
	}
	return e, nil
}

func contains(list []string, v string) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
