package webhook

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// target is one snapshot of what a request needs from settings and keyring.
type target struct {
	url        string
	method     string // POST or GET
	headerName string
	headerVal  string
	signing    []byte // nil: no signature
	userAgent  string
}

// DeliveryIDHeader carries the delivery id, the same on every retry of one
// event. With signing on it is also the Standard Webhooks webhook-id (header
// names are case-insensitive, so it is one header).
const DeliveryIDHeader = "Webhook-Id"

// TestHeader marks the test event (value "true"); real events never carry it.
const TestHeader = "Webhook-Test"

// newRequest builds the HTTP request for one event.
func (t target) newRequest(ctx context.Context, deliveryID string, p map[string]string, now time.Time) (*http.Request, error) {
	if t.url == "" {
		return nil, ErrNoURL
	}
	var body []byte
	var u string
	if t.method == http.MethodGet {
		var err error
		if u, err = getURL(t.url, p); err != nil {
			return nil, err
		}
	} else {
		u = t.url
		body = Body(p)
	}
	parsed, err := url.Parse(u)
	if err != nil || (parsed.Scheme != "http" && parsed.Scheme != "https") || parsed.Host == "" {
		return nil, ErrBadURL
	}
	var rd *bytes.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	var req *http.Request
	if rd != nil {
		req, err = http.NewRequestWithContext(ctx, t.method, u, rd)
	} else {
		req, err = http.NewRequestWithContext(ctx, t.method, u, nil)
	}
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadURL, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("User-Agent", t.userAgent)
	req.Header.Set(DeliveryIDHeader, deliveryID)
	if t.headerVal != "" {
		req.Header.Set(t.headerName, t.headerVal)
	}
	if t.signing != nil {
		// Standard Webhooks: the signed content is the body; a GET has none,
		// so its request-URI (path and query, as sent) stands in for it.
		signed := body
		if body == nil {
			signed = []byte(req.URL.RequestURI())
		}
		ts := strconv.FormatInt(now.Unix(), 10)
		req.Header.Set("Webhook-Timestamp", ts)
		req.Header.Set("Webhook-Signature", Sign(t.signing, deliveryID, ts, signed))
	}
	return req, nil
}

// getURL is the GET address: a template when it holds a known placeholder
// ([field] or a legacy one), each replaced by the percent-encoded value;
// otherwise the fields are added as query parameters, in the spec's order,
// after any query the address already has.
func getURL(tmpl string, p map[string]string) (string, error) {
	if out, ok := expand(tmpl, p); ok {
		return out, nil
	}
	var b strings.Builder
	b.WriteString(tmpl)
	sep := "?"
	if strings.Contains(tmpl, "?") {
		sep = "&"
		if strings.HasSuffix(tmpl, "?") || strings.HasSuffix(tmpl, "&") {
			sep = ""
		}
	}
	if i := strings.IndexByte(tmpl, '#'); i >= 0 {
		return "", fmt.Errorf("%w: a fragment (#) cannot carry query parameters", ErrBadURL)
	}
	for _, k := range Fields {
		b.WriteString(sep)
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(escape(p[k]))
		sep = "&"
	}
	return b.String(), nil
}

// expand replaces [name] placeholders; ok is false when there is none.
// Unknown names in brackets are left as they are.
func expand(tmpl string, p map[string]string) (string, bool) {
	var b strings.Builder
	found := false
	rest := tmpl
	for {
		i := strings.IndexByte(rest, '[')
		if i < 0 {
			break
		}
		j := strings.IndexByte(rest[i+1:], ']')
		if j < 0 {
			break
		}
		name := rest[i+1 : i+1+j]
		field, known := fieldName(name)
		if !known {
			b.WriteString(rest[:i+1])
			rest = rest[i+1:]
			continue
		}
		found = true
		b.WriteString(rest[:i])
		b.WriteString(escape(p[field]))
		rest = rest[i+2+j:]
	}
	if !found {
		return tmpl, false
	}
	b.WriteString(rest)
	return b.String(), true
}

func fieldName(name string) (string, bool) {
	if f, ok := legacy[name]; ok {
		return f, true
	}
	for _, f := range Fields {
		if f == name {
			return f, true
		}
	}
	return "", false
}

// escape percent-encodes everything but RFC 3986 unreserved characters, so a
// value is safe in a path segment and in a query alike (a space is %20).
func escape(s string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(hex[c>>4])
		b.WriteByte(hex[c&15])
	}
	return b.String()
}
