package main

import (
	"io"
	"net/http"
	"testing"
	"time"
)

// apiGet GETs url (with an Authorization header when auth is set), waiting
// for the listener to come up, and returns the body of a 200 answer.
func apiGet(t *testing.T, url, auth string) string {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	var resp *http.Response
	var err error
	for i := 0; i < 100; i++ { // the API listener starts right after the page line
		if resp, err = http.DefaultClient.Do(req); err == nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, b)
	}
	return string(b)
}
