package views

import "fmt"

// L is the language of a page: "en" or "de" (settings appearance.language).
type L string

// Languages offered in the settings.
var Languages = []string{"en", "de"}

// T gives the string for key in the page's language, falling back to English
// and then to the key itself, so a missing translation never breaks a page.
func (l L) T(key string) string {
	if s, ok := dict[string(l)][key]; ok {
		return s
	}
	if s, ok := en[key]; ok {
		return s
	}
	return key
}

// F formats the string for key with args.
func (l L) F(key string, args ...any) string { return fmt.Sprintf(l.T(key), args...) }

// Code is the language code, for the html lang attribute.
func (l L) Code() string {
	if _, ok := dict[string(l)]; ok {
		return string(l)
	}
	return "en"
}

// Title picks a taxonomy title in the language, else English, else code.
func (l L) Title(titles map[string]string, code string) string {
	if t := titles[l.Code()]; t != "" {
		return t
	}
	if t := titles["en"]; t != "" {
		return t
	}
	return code
}

var dict = map[string]map[string]string{"en": en, "de": de}
