package sipua

import (
	"context"
	"fmt"
	"strconv"

	"github.com/emiago/sipgo"
	"github.com/emiago/sipgo/sip"

	"github.com/softphone/softphone/store"
)

// TestRegistration checks an account and password against its registrar and
// gives the registrar's answer line ("200 OK", "403 Forbidden"). It sends a
// REGISTER without Contact, which asks for the bindings and changes none
// (RFC 3261 10.2.3), so a registered line stays as it is.
func (p *Phone) TestRegistration(ctx context.Context, a store.Account, password string) (string, error) {
	p.mu.Lock()
	st := p.stack
	p.mu.Unlock()
	if st == nil {
		return "", ErrNotServing
	}
	l, err := newLine(p, a)
	if err != nil {
		return "", fmt.Errorf("test registration: %w", err)
	}
	host, port := registrarAddr(l.acc)
	ru := sip.Uri{Scheme: "sip", Host: host}
	if port != 0 && port != defaultPort(l.acc.Transport) {
		ru.Port = port
	}
	req := sip.NewRequest(sip.REGISTER, ru)
	from := &sip.FromHeader{Address: aor(l.acc), Params: sip.NewParams()}
	from.Params.Add("tag", sip.GenerateTagN(16))
	req.AppendHeader(from)
	req.AppendHeader(&sip.ToHeader{Address: aor(l.acc)})
	req.AppendHeader(&sip.CSeqHeader{SeqNo: 1, MethodName: sip.REGISTER})
	l.prepare(req)
	ctx, cancel := context.WithTimeout(ctx, regTimeout)
	defer cancel()
	res, err := doRequest(ctx, l.client, req)
	if err == nil && (res.StatusCode == 401 || res.StatusCode == 407) {
		res, err = doDigest(ctx, l.client, req, res, sipgo.DigestAuth{Username: l.authUser(), Password: password})
	}
	if err != nil {
		return "", fmt.Errorf("test registration: %w: %s", ErrRegistration, causeOf(err))
	}
	line := strconv.Itoa(res.StatusCode) + " " + res.Reason
	if !res.IsSuccess() {
		return line, fmt.Errorf("test registration: %w: %s", ErrRegistration, line)
	}
	return line, nil
}
