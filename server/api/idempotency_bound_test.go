package api

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// TestIdempotencyKeysBounded: the keys POST /calls remembers are bounded.
// Each was kept for 10 minutes whatever its length (up to the 8 KiB of a
// header) and number, so a local program dialling with fresh long keys grew
// the phone's memory without bound. A key above 255 bytes is refused 400
// and dials nothing; with 1024 keys in their window a new key is refused
// 429 with Retry-After and dials nothing, while a remembered key is still
// replayed (rest-api.md: same key within 10 minutes, nothing dialled), and
// a dial without a key still goes out.
func TestIdempotencyKeysBounded(t *testing.T) {
	e := newEnv(t)
	long := "Idempotency-Key: " + strings.Repeat("k", maxIdempotencyKeyLen+1)
	if r := do(t, "POST", e.base+"/calls", `{"number":"555"}`, long); r.status != 400 || r.errMsg(t) != msgKeyTooLong {
		t.Fatalf("a key of %d bytes: %d %s", maxIdempotencyKeyLen+1, r.status, r.body)
	}
	if n := len(e.phone.Commands()); n != 0 {
		t.Fatalf("the refused key dialled %d times", n)
	}
	edge := "Idempotency-Key: " + strings.Repeat("k", maxIdempotencyKeyLen)
	if r := do(t, "POST", e.base+"/calls", `{"number":"555"}`, edge); r.status != 201 {
		t.Fatalf("a key of %d bytes: %d %s", maxIdempotencyKeyLen, r.status, r.body)
	}
	for i := 1; i < maxIdempotencyKeys; i++ {
		if r := do(t, "POST", e.base+"/calls", `{"number":"555"}`, fmt.Sprintf("Idempotency-Key: key-%04d", i)); r.status != 201 {
			t.Fatalf("key %d: %d %s", i, r.status, r.body)
		}
	}
	dialled := len(e.phone.Commands())
	r := do(t, "POST", e.base+"/calls", `{"number":"555"}`, "Idempotency-Key: one-too-many")
	if r.status != 429 || r.errMsg(t) != msgTooManyKeys {
		t.Fatalf("key %d: %d %s", maxIdempotencyKeys+1, r.status, r.body)
	}
	if s, err := strconv.Atoi(r.header.Get("Retry-After")); err != nil || s < 1 || s > 600 {
		t.Errorf("Retry-After %q", r.header.Get("Retry-After"))
	}
	if n := len(e.phone.Commands()); n != dialled {
		t.Fatalf("the refused key dialled")
	}
	if r := do(t, "POST", e.base+"/calls", `{"number":"555"}`, "Idempotency-Key: key-0001"); r.status != 201 || r.header.Get("Idempotent-Replayed") != "true" {
		t.Fatalf("a remembered key: %d replayed=%q", r.status, r.header.Get("Idempotent-Replayed"))
	}
	if r := e.post("/calls", `{"number":"555"}`); r.status != 201 {
		t.Fatalf("without a key: %d %s", r.status, r.body)
	}
	if n := len(e.phone.Commands()); n != dialled+1 {
		t.Fatalf("dialled %d more, want 1", n-dialled)
	}
	e.srv.idem.mu.Lock()
	n := len(e.srv.idem.keys)
	e.srv.idem.mu.Unlock()
	if n != maxIdempotencyKeys {
		t.Errorf("%d keys remembered", n)
	}
}

// TestIdempotencyRoomAgainAfterTheWindow: a key whose window ended makes
// room for a new one.
func TestIdempotencyRoomAgainAfterTheWindow(t *testing.T) {
	m := newIdempotency(idempotencyWindow)
	m.max = 2
	place := func() (string, error) { return "id", nil }
	for _, k := range []string{"a", "b"} {
		if _, _, err := m.do(k, place); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := m.do("c", place); err == nil {
		t.Fatal("a third key taken")
	}
	m.mu.Lock()
	m.keys["a"].at = m.keys["a"].at.Add(-idempotencyWindow - 1)
	m.mu.Unlock()
	if _, replayed, err := m.do("c", place); err != nil || replayed {
		t.Fatalf("after a's window: %v replayed=%v", err, replayed)
	}
}
