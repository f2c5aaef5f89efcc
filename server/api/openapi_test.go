package api

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
)

type openapiDoc struct {
	OpenAPI string `json:"openapi"`
	Paths   map[string]map[string]struct {
		Summary   string           `json:"summary"`
		Group     *string          `json:"x-access-group"`
		Security  []map[string]any `json:"security"`
		Responses map[string]any   `json:"responses"`
	} `json:"paths"`
	Components struct {
		Schemas map[string]struct {
			Properties map[string]any `json:"properties"`
			Required   []string       `json:"required"`
		} `json:"schemas"`
	} `json:"components"`
}

func loadOpenAPI(t *testing.T) openapiDoc {
	t.Helper()
	var d openapiDoc
	if err := json.Unmarshal(openapiJSON, &d); err != nil {
		t.Fatalf("openapi.json: %v", err)
	}
	if !strings.HasPrefix(d.OpenAPI, "3.1") {
		t.Fatalf("openapi %q, want 3.1", d.OpenAPI)
	}
	return d
}

// TestOpenAPIMatchesRoutes fails when a route and openapi.json disagree:
// a route missing from the description or the other way round, a different
// summary, token requirement or access group.
func TestOpenAPIMatchesRoutes(t *testing.T) {
	d := loadOpenAPI(t)
	e := newEnv(t)
	described := map[string]bool{}
	for path, ops := range d.Paths {
		for m := range ops {
			described[strings.ToUpper(m)+" "+path] = true
		}
	}
	served := map[string]bool{}
	for _, r := range e.srv.routes() {
		key := r.method + " " + r.path
		served[key] = true
		op, ok := d.Paths[r.path][strings.ToLower(r.method)]
		if !ok {
			t.Errorf("%s is served but not in openapi.json", key)
			continue
		}
		if op.Summary != r.summary {
			t.Errorf("%s: summary %q in openapi.json, %q in the listing", key, op.Summary, r.summary)
		}
		if (len(op.Security) > 0) != r.token {
			t.Errorf("%s: token %v in routes, security %v in openapi.json", key, r.token, op.Security)
		}
		group := ""
		if op.Group != nil {
			group = *op.Group
		}
		if group != r.group {
			t.Errorf("%s: group %q in routes, %q in openapi.json", key, r.group, group)
		}
	}
	for key := range described {
		if !served[key] {
			t.Errorf("%s is in openapi.json but not served", key)
		}
	}
	// And the fiber app really registers exactly the table.
	app := e.srv.newApp(&listener{stop: make(chan struct{})})
	registered := map[string]bool{}
	for _, r := range app.GetRoutes(true) {
		if r.Method == "HEAD" {
			continue
		}
		registered[r.Method+" "+r.Path] = true
	}
	for key := range served {
		m, p, _ := strings.Cut(key, " ")
		if !registered[m+" "+fiberPath(p)] {
			t.Errorf("%s is in the table but not registered with fiber", key)
		}
	}
	if len(registered) != len(served) {
		t.Errorf("fiber has %d routes, the table %d", len(registered), len(served))
	}
}

// TestOpenAPISchemasMatchJSON: the resource schemas list exactly the fields
// the handlers write.
func TestOpenAPISchemasMatchJSON(t *testing.T) {
	d := loadOpenAPI(t)
	for name, v := range map[string]any{"Call": callJSON{}, "Account": accountJSON{}, "HistoryEntry": historyJSON{},
		"Contact": contactJSON{}, "TaxonomyEntry": taxonomyJSON{}, "Listing": nil} {
		sch, ok := d.Components.Schemas[name]
		if !ok {
			t.Errorf("no schema %s", name)
			continue
		}
		if v == nil {
			continue
		}
		var fields []string
		rt := reflect.TypeOf(v)
		for i := 0; i < rt.NumField(); i++ {
			tag, _, _ := strings.Cut(rt.Field(i).Tag.Get("json"), ",")
			fields = append(fields, tag)
		}
		var props []string
		for p := range sch.Properties {
			props = append(props, p)
		}
		slices.Sort(fields)
		slices.Sort(props)
		if !slices.Equal(fields, props) {
			t.Errorf("schema %s has %v, the handler writes %v", name, props, fields)
		}
	}
}

// TestOpenAPIServedAndListed: /openapi.json is served and listed on /.
func TestOpenAPIServedAndListed(t *testing.T) {
	e := newEnv(t)
	res := e.get("/openapi.json")
	if res.status != 200 || !json.Valid(res.body) || !strings.HasPrefix(res.header.Get("Content-Type"), "application/json") {
		t.Fatalf("GET /openapi.json: %d %s", res.status, res.header.Get("Content-Type"))
	}
	// servers names the address really listened on, not the default port.
	var served struct {
		Servers []struct {
			URL string `json:"url"`
		} `json:"servers"`
	}
	res.json(t, &served)
	if len(served.Servers) != 1 || served.Servers[0].URL != e.base || strings.HasSuffix(e.base, ":8377") {
		t.Errorf("servers %+v, want %s", served.Servers, e.base)
	}
	var l struct {
		Endpoints []listingEntry `json:"endpoints"`
	}
	e.get("/").json(t, &l)
	if !slices.ContainsFunc(l.Endpoints, func(x listingEntry) bool {
		return x.Path == "/openapi.json" && strings.HasSuffix(x.Href, "/openapi.json")
	}) {
		t.Fatal("/openapi.json is not listed with a link")
	}
}
