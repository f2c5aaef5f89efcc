package main

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	_ "github.com/glebarez/go-sqlite" // the driver the phone itself uses
	"github.com/softphone/softphone/store"
)

// fillHistory creates the phone's database (its own migrations) and writes n
// finished calls, every tenth with two tags, in one transaction.
func fillHistory(path string, n int) error {
	db, err := store.OpenDB(path)
	if err != nil {
		return err
	}
	if err := db.Close(); err != nil {
		return err
	}
	sdb, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		return err
	}
	defer sdb.Close()
	ctx := context.Background()
	tx, err := sdb.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	st, err := tx.PrepareContext(ctx, `INSERT INTO history (id, call_id, seance_id, account_id, account, direction,
		number, uri, name, dialed, outcome, answered, duration_s, reason, answered_by, started_at, answered_at,
		ended_at, open, declined, jitter, loss, note, recording)
		VALUES (?, ?, ?, ?, 'alice@pbx.test', 'in', ?, ?, ?, '', ?, ?, 42.5, 'remote-hangup', 'no', ?, ?, ?, 0, ?, 0, 0, '', '')`)
	if err != nil {
		return err
	}
	var codes []string
	rows, err := tx.QueryContext(ctx, "SELECT code FROM taxonomy ORDER BY code LIMIT 2")
	if err != nil {
		return err
	}
	for rows.Next() {
		var c string
		if err := rows.Scan(&c); err != nil {
			return err
		}
		codes = append(codes, c)
	}
	rows.Close()
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	for j := range n {
		outcome := []string{"answered", "answered", "missed", "declined", "failed"}[j%5]
		start := base + int64(j)*60000
		num := fmt.Sprintf("+4930%07d", j)
		id := fmt.Sprintf("00000000-0000-4000-8000-%012d", j)
		if _, err := st.ExecContext(ctx, id, fmt.Sprintf("10000000-0000-4000-8000-%012d", j),
			fmt.Sprintf("20000000-0000-4000-8000-%012d", j), "30000000-0000-4000-8000-000000000001", num,
			"sip:"+num+"@pbx.test", "Caller "+num, outcome, outcome == "answered", start, start+5000, start+50000,
			outcome == "declined"); err != nil {
			return err
		}
		if j%10 == 0 {
			for _, c := range codes {
				if _, err := tx.ExecContext(ctx, "INSERT INTO history_tags (history_id, code) VALUES (?, ?)", id, c); err != nil {
					return err
				}
			}
		}
	}
	return tx.Commit()
}
