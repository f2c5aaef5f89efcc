package store

import (
	"strings"
	"testing"
)

// queryPlan is SQLite's plan of q (EXPLAIN QUERY PLAN), its steps'
// details joined with "; ".
func queryPlan(t testing.TB, db *DB, q string, args ...any) string {
	t.Helper()
	rows, err := db.rd.Query("EXPLAIN QUERY PLAN "+q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			t.Fatal(err)
		}
		plan = append(plan, detail)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(plan, "; ")
}
