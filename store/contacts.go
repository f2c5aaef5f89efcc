package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
)

type contactRow struct {
	ID        string `gorm:"primaryKey"`
	Name      string
	Number    string
	NumberKey string
	AccountID string
	Watch     bool
	CreatedAt int64 `gorm:"autoCreateTime:false"`
	UpdatedAt int64 `gorm:"autoUpdateTime:false"`
}

func (contactRow) TableName() string { return "contacts" }

func (r contactRow) contact() Contact {
	return Contact{ID: r.ID, Name: r.Name, Number: r.Number, AccountID: r.AccountID, Watch: r.Watch}
}

// numberKey is the form numbers are matched in: the number without the
// separators people type (spaces, dashes, dots, slashes, brackets), so
// "+49 30 1234-5" finds "+493012345".
func numberKey(n string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case ' ', '-', '.', '/', '(', ')', '\t':
			return -1
		}
		return r
	}, n)
}

func validContact(c Contact) error {
	if strings.TrimSpace(c.Name) == "" && strings.TrimSpace(c.Number) == "" {
		return fmt.Errorf("contact: %w: needs a name or a number", ErrInvalid)
	}
	return nil
}

// ListContacts returns contacts ordered by name; a non-empty query keeps
// those whose name or number contains it (case-insensitive; numbers also
// match without separators).
func (db *DB) ListContacts(ctx context.Context, query string) ([]Contact, error) {
	q := db.g.WithContext(ctx).Order("name COLLATE NOCASE, id")
	if query = strings.TrimSpace(query); query != "" {
		like := "%" + escapeLike(query) + "%"
		q = q.Where("name LIKE ? ESCAPE '\\' OR number LIKE ? ESCAPE '\\' OR number_key LIKE ? ESCAPE '\\'",
			like, like, "%"+escapeLike(numberKey(query))+"%")
	}
	var rows []contactRow
	if err := q.Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("list contacts: %w", err)
	}
	out := make([]Contact, len(rows))
	for i, r := range rows {
		out[i] = r.contact()
	}
	return out, nil
}

// GetContact returns one contact; ErrNotFound when the id is unknown.
func (db *DB) GetContact(ctx context.Context, id string) (Contact, error) {
	var r contactRow
	if err := db.g.WithContext(ctx).Where("id = ?", id).Take(&r).Error; err != nil {
		return Contact{}, notFound(err, "contact", id)
	}
	return r.contact(), nil
}

// FindContactByNumber returns the contact with that number (compared without
// separators, else in E.164 form read in the region of SetNumberRegion, so
// "+49 30 1234567", "0049301234567" and "030 1234567" are one number; the
// oldest contact wins when several share it); ErrNotFound when none.
func (db *DB) FindContactByNumber(ctx context.Context, number string) (Contact, error) {
	key := numberKey(number)
	if key == "" {
		return Contact{}, fmt.Errorf("contact with number %q: %w", number, ErrNotFound)
	}
	c, ok, err := db.contactByNumber(ctx, number)
	if err != nil {
		return Contact{}, fmt.Errorf("contact with number %q: %w", number, err)
	}
	if !ok {
		return Contact{}, fmt.Errorf("contact with number %q: %w", number, ErrNotFound)
	}
	return c, nil
}

// CreateContact stores a new contact under a new UUID and returns it.
func (db *DB) CreateContact(ctx context.Context, c Contact) (Contact, error) {
	if err := validContact(c); err != nil {
		return Contact{}, err
	}
	defer db.contacts.drop()
	c.ID = uuid.NewString()
	now := time.Now().UnixNano()
	r := contactRow{ID: c.ID, Name: c.Name, Number: c.Number, NumberKey: numberKey(c.Number),
		AccountID: c.AccountID, Watch: c.Watch, CreatedAt: now, UpdatedAt: now}
	if err := db.g.WithContext(ctx).Create(&r).Error; err != nil {
		return Contact{}, fmt.Errorf("create contact: %w", err)
	}
	return c, nil
}

// WatchedContacts lists the contacts whose line and presence are watched.
func (db *DB) WatchedContacts(ctx context.Context) ([]Contact, error) {
	var rows []contactRow
	if err := db.g.WithContext(ctx).Where("watch <> 0").Order("name COLLATE NOCASE, id").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("watched contacts: %w", err)
	}
	out := make([]Contact, len(rows))
	for i, r := range rows {
		out[i] = r.contact()
	}
	return out, nil
}

// UpdateContact replaces name, number and line of an existing contact.
func (db *DB) UpdateContact(ctx context.Context, c Contact) (Contact, error) {
	if err := validContact(c); err != nil {
		return Contact{}, err
	}
	defer db.contacts.drop()
	res := db.g.WithContext(ctx).Model(&contactRow{}).Where("id = ?", c.ID).Updates(map[string]any{
		"name": c.Name, "number": c.Number, "number_key": numberKey(c.Number),
		"account_id": c.AccountID, "watch": c.Watch, "updated_at": time.Now().UnixNano(),
	})
	if res.Error != nil {
		return Contact{}, fmt.Errorf("update contact %q: %w", c.ID, res.Error)
	}
	if res.RowsAffected == 0 {
		return Contact{}, fmt.Errorf("update contact %q: %w", c.ID, ErrNotFound)
	}
	return c, nil
}

// DeleteContact removes a contact; ErrNotFound when the id is unknown.
func (db *DB) DeleteContact(ctx context.Context, id string) error {
	defer db.contacts.drop()
	res := db.g.WithContext(ctx).Where("id = ?", id).Delete(&contactRow{})
	if res.Error != nil {
		return fmt.Errorf("delete contact %q: %w", id, res.Error)
	}
	if res.RowsAffected == 0 {
		return fmt.Errorf("delete contact %q: %w", id, ErrNotFound)
	}
	return nil
}

// escapeLike escapes the LIKE wildcards of s (escape character \).
func escapeLike(s string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(s)
}

// FindContactByName returns the contact whose name is name, ignoring case
// and the spaces around it (the dial field's "Enter on a name"; the oldest
// when several share it). Only a whole name counts: "bob" is a SIP user to
// dial, not the start of "Bob Builder". ErrNotFound when none fits, and for
// contacts without a number (nothing to dial).
func (db *DB) FindContactByName(ctx context.Context, name string) (Contact, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return Contact{}, fmt.Errorf("contact named %q: %w", name, ErrNotFound)
	}
	var rows []contactRow
	if err := db.g.WithContext(ctx).Where("number <> '' AND name LIKE ? ESCAPE '\\'", escapeLike(name)+"%").
		Order("created_at, id").Limit(50).Find(&rows).Error; err != nil {
		return Contact{}, fmt.Errorf("contact named %q: %w", name, err)
	}
	for _, r := range rows {
		if strings.EqualFold(strings.TrimSpace(r.Name), name) {
			return r.contact(), nil
		}
	}
	return Contact{}, fmt.Errorf("contact named %q: %w", name, ErrNotFound)
}
