package httplimit

import (
	"net"
	"time"
)

// Listener wraps ln so that every write on an accepted connection must make
// progress within l.Write: a client that stops reading (or a peer that is
// gone) frees the connection instead of holding a goroutine and a file
// descriptor for ever.
func (l Limits) Listener(ln net.Listener) net.Listener {
	return &listener{Listener: ln, write: l.withDefaults().Write}
}

type listener struct {
	net.Listener
	write time.Duration
}

func (ln *listener) Accept() (net.Conn, error) {
	c, err := ln.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &conn{Conn: c, write: ln.write}, nil
}

// conn sets a fresh write deadline before each write.
type conn struct {
	net.Conn
	write time.Duration
}

func (c *conn) Write(b []byte) (int, error) {
	if err := c.Conn.SetWriteDeadline(time.Now().Add(c.write)); err != nil {
		return 0, err
	}
	return c.Conn.Write(b)
}
