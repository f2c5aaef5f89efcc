package store

import (
	"context"
	"fmt"
	"sync"

	"github.com/softphone/softphone/internal/phonenum"
)

// contactIndex maps number keys to the contact a lookup by number gives (the
// oldest with that key). Every call looks its caller up, twice (the ringing
// call and its history entry), so the lookup is kept in memory: one query
// per change of the contacts instead of one per call. Contacts change only
// through this package (Create/Update/DeleteContact), which drop the index.
type contactIndex struct {
	mu    sync.Mutex
	byKey map[string]Contact // nil: not loaded
	// byE164 is the same contacts by the E.164 form of their numbers
	// (read in region), so "030 1234567" finds "+49 30 1234567".
	byE164 map[string]Contact
	region string   // sip.default_region the index was read in
	gen    uint64   // bumped on every change, so a load that raced a change is not kept
	hooks  []func() // told after every change (OnContactsChanged)
}

// drop forgets the index after a change of the contacts.
func (ix *contactIndex) drop() {
	ix.mu.Lock()
	ix.byKey, ix.byE164 = nil, nil
	ix.gen++
	hooks := ix.hooks
	ix.mu.Unlock()
	for _, f := range hooks {
		f()
	}
}

// OnContactsChanged has fn called after every change of the contacts (the
// phone then watches the contacts marked watch). fn must not block.
func (db *DB) OnContactsChanged(fn func()) {
	db.contacts.mu.Lock()
	db.contacts.hooks = append(db.contacts.hooks, fn)
	db.contacts.mu.Unlock()
}

// SetNumberRegion sets the region numbers without a country code are read
// in (sip.default_region, e.g. "DE"; empty: none) when numbers are matched
// to contacts. The index is read again under the new region.
func (db *DB) SetNumberRegion(region string) {
	ix := &db.contacts
	ix.mu.Lock()
	if ix.region == region {
		ix.mu.Unlock()
		return
	}
	ix.region = region
	ix.byKey, ix.byE164 = nil, nil
	ix.gen++
	ix.mu.Unlock()
}

// contactByNumber finds the contact of a number: by its key (the number as
// written, without separators) first, else by its E.164 form. The index is
// loaded first when needed.
func (db *DB) contactByNumber(ctx context.Context, number string) (Contact, bool, error) {
	ix := &db.contacts
	ix.mu.Lock()
	m, e164, gen, region := ix.byKey, ix.byE164, ix.gen, ix.region
	ix.mu.Unlock()
	if m == nil {
		sdb, err := db.raw()
		if err != nil {
			return Contact{}, false, err
		}
		rows, err := sdb.QueryContext(ctx, `SELECT id, name, number, number_key, account_id FROM contacts
			WHERE number_key <> '' ORDER BY created_at DESC, id DESC`)
		if err != nil {
			return Contact{}, false, fmt.Errorf("contacts: %w", err)
		}
		defer rows.Close()
		m, e164 = map[string]Contact{}, map[string]Contact{}
		for rows.Next() {
			var c Contact
			var k string
			if err := rows.Scan(&c.ID, &c.Name, &c.Number, &k, &c.AccountID); err != nil {
				return Contact{}, false, fmt.Errorf("contacts: %w", err)
			}
			m[k] = c // newest first, so the oldest of a key is written last and stays
			if n, ok := phonenum.E164(c.Number, region); ok {
				e164[n] = c
			}
		}
		if err := rows.Err(); err != nil {
			return Contact{}, false, fmt.Errorf("contacts: %w", err)
		}
		ix.mu.Lock()
		if ix.gen == gen {
			ix.byKey, ix.byE164 = m, e164
		}
		ix.mu.Unlock()
	}
	if c, ok := m[numberKey(number)]; ok {
		return c, true, nil
	}
	if n, ok := phonenum.E164(number, region); ok {
		c, ok := e164[n]
		return c, ok, nil
	}
	return Contact{}, false, nil
}
