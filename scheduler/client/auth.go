package client

import "net/http"

// WithToken returns a client of the same schedulers, through the same
// HTTP client, that sends token as a bearer token (Authorization: Bearer
// TOKEN) with every request, for a scheduler that checks tokens
// (docs/security.md). c itself is unchanged.
//
// A scheduler that checks tokens answers a request without one, or with
// one it does not know, 401, an *Error that wraps api.ErrUnauthenticated;
// and a request the token's role may not make 403, api.ErrForbidden.
func (c *Client) WithToken(token string) *Client {
	d := &Client{bases: c.bases, hc: c.hc, token: token}
	d.cur.Store(c.cur.Load())
	return d
}

// authorize adds the client's token to req, if it has one.
func (c *Client) authorize(req *http.Request) {
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
}
