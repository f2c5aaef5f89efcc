package views

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// Every key the pages use has English and German text, and both maps hold
// the same keys.
func TestEveryKeyTranslated(t *testing.T) {
	for k := range en {
		if _, ok := de[k]; !ok {
			t.Errorf("no German for %q", k)
		}
	}
	for k := range de {
		if _, ok := en[k]; !ok {
			t.Errorf("German %q has no English", k)
		}
	}
	re := regexp.MustCompile(`\.(?:T|F)\("([a-zA-Z0-9_.-]*[a-zA-Z0-9_-])"`)
	files, _ := filepath.Glob("*.templ")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			if _, ok := en[m[1]]; !ok {
				t.Errorf("%s: key %q has no text", f, m[1])
			}
		}
	}
	// Keys built from a prefix and a value.
	for _, prefix := range []string{"state.", "reg.", "outcome.", "kind.", "theme.", "group.", "settings."} {
		n := 0
		for k := range en {
			if len(k) > len(prefix) && k[:len(prefix)] == prefix {
				n++
			}
		}
		if n == 0 {
			t.Errorf("no keys with prefix %q", prefix)
		}
	}
	if L("de").T("nav.settings") != "Einstellungen" || L("fr").T("nav.settings") != "Settings" || L("en").T("nope") != "nope" {
		t.Fatal("lookup")
	}
}

// Every label handed to a form field has text.
func TestFieldLabelsTranslated(t *testing.T) {
	re := regexp.MustCompile(`@(?:textField|inputField|selectField|secretField|checkField)\(p\.L, "[^"]*", "([^"]+)"|@sectionForm\(p, d, "[^"]*", "([^"]+)"`)
	files, _ := filepath.Glob("*.templ")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			key := m[1] + m[2]
			if _, ok := en[key]; !ok {
				t.Errorf("%s: label %q has no text", f, key)
			}
		}
	}
}
