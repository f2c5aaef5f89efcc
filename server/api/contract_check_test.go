package api

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
)

// recordTB keeps what the contract check reports instead of failing.
type recordTB struct {
	testing.TB
	errs []string
}

func (r *recordTB) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// TestContractCatchesDrift: the check behind every test request fails on an
// undocumented status, a body off its schema, a missing required header, an
// undeclared header, a servers entry that is
// not the address, and passes the same document's own answers.
func TestContractCatchesDrift(t *testing.T) {
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	servers := addr
	mux := http.NewServeMux()
	mux.HandleFunc("GET /openapi.json", func(w http.ResponseWriter, _ *http.Request) {
		doc, err := replaceTopLevel(openapiJSON, "servers", []byte(`[{"url":"http://`+servers+`"}]`))
		if err != nil {
			t.Error(err)
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(doc)
	})
	reply := func(status int, body string, hdr ...string) http.HandlerFunc {
		return func(w http.ResponseWriter, _ *http.Request) {
			for _, h := range hdr {
				k, v, _ := strings.Cut(h, ": ")
				w.Header().Set(k, v)
			}
			if body != "" && w.Header().Get("Content-Type") == "" {
				w.Header().Set("Content-Type", "application/json")
			}
			w.WriteHeader(status)
			w.Write([]byte(body))
		}
	}
	mux.HandleFunc("GET /calls", reply(200, `[{"id":5}]`))
	mux.HandleFunc("POST /calls", reply(201, `{"id":"3f1c2b7e-8a4d-4c1e-9b2a-5d6e7f8a9b0c"}`))
	mux.HandleFunc("GET /contacts", reply(418, `{"error":"teapot"}`))
	mux.HandleFunc("GET /accounts", reply(200, `[]`, "X-Extra: 1"))
	mux.HandleFunc("GET /taxonomy", reply(200, `[]`))
	mux.HandleFunc("GET /nothing", reply(404, `{"error":"no such endpoint"}`))
	mux.HandleFunc("GET /history", reply(500, `internal`, "Content-Type: text/plain"))
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })

	for _, c := range []struct {
		method, path string
		want         string // "" = passes
	}{
		{"GET", "/taxonomy", ""},
		{"GET", "/nothing", ""},
		{"GET", "/calls", "doesn't match schema"},
		{"POST", "/calls", `"Location"`},
		{"GET", "/contacts", "status 418 is not in responses"},
		{"GET", "/accounts", "header X-Extra is sent but not described"},
		{"GET", "/history", "text/plain"},
	} {
		rec := &recordTB{TB: t}
		req, _ := http.NewRequest(c.method, "http://"+addr+c.path, nil)
		res, err := apiClient(rec).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		got := strings.Join(rec.errs, "\n")
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%s %s: reported %q, want %q", c.method, c.path, got, c.want)
		}
	}

	// A document whose servers entry is not the address it is served on.
	contractDocs.Delete(addr)
	servers = "127.0.0.1:8377"
	rec := &recordTB{TB: t}
	res, err := apiClient(rec).Get("http://" + addr + "/taxonomy")
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if got := strings.Join(rec.errs, "\n"); !strings.Contains(got, "want the address listened on") {
		t.Errorf("wrong servers: reported %q", got)
	}
	contractDocs.Delete(addr)
}
