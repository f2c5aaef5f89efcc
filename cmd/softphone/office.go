package main

import (
	"context"
	"log/slog"

	"github.com/softphone/softphone/sipua"
	"github.com/softphone/softphone/store"
)

// watchContacts keeps the phone's watched contacts (busy lamps, presence)
// equal to the contacts marked watch in the database: once now, then after
// every change of the contacts, from one goroutine so changes apply in order.
func watchContacts(ctx context.Context, phone *sipua.Phone, db *store.DB, log *slog.Logger) {
	poke := make(chan struct{}, 1)
	db.OnContactsChanged(func() {
		select {
		case poke <- struct{}{}:
		default:
		}
	})
	load := func() {
		cs, err := db.WatchedContacts(ctx)
		if err != nil {
			log.Warn("watched contacts", "error", err)
			return
		}
		ws := make([]sipua.Watched, 0, len(cs))
		for _, c := range cs {
			ws = append(ws, sipua.Watched{ContactID: c.ID, Number: c.Number, AccountID: c.AccountID})
		}
		phone.SetWatched(ws)
	}
	load()
	go func() {
		for {
			select {
			case <-ctx.Done():
				return
			case <-poke:
				load()
			}
		}
	}()
}
