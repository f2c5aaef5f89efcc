package store

import (
	"context"
	"fmt"
	"sync"
)

// contactIndex maps number keys to the contact a lookup by number gives (the
// oldest with that key). Every call looks its caller up, twice (the ringing
// call and its history entry), so the lookup is kept in memory: one query
// per change of the contacts instead of one per call. Contacts change only
// through this package (Create/Update/DeleteContact), which drop the index.
type contactIndex struct {
	mu    sync.Mutex
	byKey map[string]Contact // nil: not loaded
	gen   uint64             // bumped on every change, so a load that raced a change is not kept
	hooks []func()           // told after every change (OnContactsChanged)
}

// drop forgets the index after a change of the contacts.
func (ix *contactIndex) drop() {
	ix.mu.Lock()
	ix.byKey = nil
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

// contactByKey finds the contact of a number key, loading the index first
// when needed.
func (db *DB) contactByKey(ctx context.Context, key string) (Contact, bool, error) {
	ix := &db.contacts
	ix.mu.Lock()
	m, gen := ix.byKey, ix.gen
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
		m = map[string]Contact{}
		for rows.Next() {
			var c Contact
			var k string
			if err := rows.Scan(&c.ID, &c.Name, &c.Number, &k, &c.AccountID); err != nil {
				return Contact{}, false, fmt.Errorf("contacts: %w", err)
			}
			m[k] = c // newest first, so the oldest of a key is written last and stays
		}
		if err := rows.Err(); err != nil {
			return Contact{}, false, fmt.Errorf("contacts: %w", err)
		}
		ix.mu.Lock()
		if ix.gen == gen {
			ix.byKey = m
		}
		ix.mu.Unlock()
	}
	c, ok := m[key]
	return c, ok, nil
}
