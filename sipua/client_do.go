package sipua

import (
	"context"
	"errors"

	"github.com/emiago/sipgo"
	"github.com/emiago/sipgo/sip"
)

// errNoAnswer is a client transaction that ended with neither an answer nor
// a reason.
var errNoAnswer = errors.New("transaction ended without an answer")

// doRequest is client.Do that never gives (nil, nil). sipgo v1.7.2's
// ClientTx.Terminate closes the transaction's done channel before it records
// why (sip/transaction_client_tx.go), so a Do racing the stop of the user
// agent can see the transaction done with no error and return no answer and
// no error; the caller would then read a nil response.
func doRequest(ctx context.Context, c *sipgo.Client, req *sip.Request) (*sip.Response, error) {
	res, err := c.Do(ctx, req)
	return answerOrError(res, err)
}

// doDigest is client.DoDigestAuth with the same guarantee as doRequest.
func doDigest(ctx context.Context, c *sipgo.Client, req *sip.Request, challenge *sip.Response, auth sipgo.DigestAuth) (*sip.Response, error) {
	res, err := c.DoDigestAuth(ctx, req, challenge, auth)
	return answerOrError(res, err)
}

func answerOrError(res *sip.Response, err error) (*sip.Response, error) {
	if err == nil && res == nil {
		return nil, errNoAnswer
	}
	return res, err
}
