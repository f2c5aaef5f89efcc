package api

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/softphone/softphone/store"
)

var updateDoc = flag.Bool("update", false, "rewrite components.schemas.Settings of openapi.json from store.Settings")

// settingsSchema is the JSON Schema of a settings value, made from the Go
// type: every field by its JSON name, no other (the API refuses unknown keys).
func settingsSchema(t reflect.Type) map[string]any {
	switch t.Kind() {
	case reflect.Struct:
		props := map[string]any{}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "-" || !f.IsExported() {
				continue
			}
			if name == "" {
				name = f.Name
			}
			props[name] = settingsSchema(f.Type)
		}
		return map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	case reflect.Slice, reflect.Array:
		return map[string]any{"type": "array", "items": settingsSchema(t.Elem())}
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return map[string]any{"type": "integer"}
	case reflect.Float32, reflect.Float64:
		return map[string]any{"type": "number"}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": settingsSchema(t.Elem())}
	}
	return map[string]any{}
}

const settingsDescription = "settings.json without secrets (README, Settings); the *_saved fields say whether a secret is kept in the keyring, never what it is, and are ignored in a patch."

// TestOpenAPISettingsSchema: the Settings schema of openapi.json is exactly
// the shape of store.Settings (names, types, nesting). A settings key added
// in store fails here until the document has it:
//
//	go test ./server/api -run TestOpenAPISettingsSchema -update && npm run gen:api
func TestOpenAPISettingsSchema(t *testing.T) {
	want := settingsSchema(reflect.TypeOf(store.Settings{}))
	want["description"] = settingsDescription
	var doc struct {
		Components struct {
			Schemas map[string]any `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(openapiJSON, &doc); err != nil {
		t.Fatal(err)
	}
	got := doc.Components.Schemas["Settings"]
	wantJSON, _ := json.Marshal(want)
	gotJSON, _ := json.Marshal(got)
	if bytes.Equal(wantJSON, gotJSON) {
		return
	}
	if !*updateDoc {
		t.Fatalf("components.schemas.Settings of openapi.json is not the shape of store.Settings:\n got %s\nwant %s\n"+
			"run: go test ./server/api -run TestOpenAPISettingsSchema -update && npm run gen:api", gotJSON, wantJSON)
	}
	out, err := replaceSchema(openapiJSON, "Settings", want)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile("openapi.json", out, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Log("openapi.json: components.schemas.Settings rewritten")
}

// replaceSchema replaces the value of components.schemas.<name> in the
// indented document text, leaving every other byte as it is.
func replaceSchema(doc []byte, name string, v any) ([]byte, error) {
	const indent = "      " // components > schemas > name
	key := []byte("\n" + indent + `"` + name + `": `)
	start := bytes.Index(doc, key)
	if start < 0 {
		return nil, os.ErrNotExist
	}
	start += len(key)
	dec := json.NewDecoder(bytes.NewReader(doc[start:]))
	var old json.RawMessage
	if err := dec.Decode(&old); err != nil {
		return nil, err
	}
	end := start + int(dec.InputOffset())
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent(indent, "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return append(append(append([]byte{}, doc[:start]...), bytes.TrimRight(buf.Bytes(), "\n")...), doc[end:]...), nil
}
