//go:build !linux

package audio

import (
	"errors"
	"net/netip"
	"time"
)

// quietSock is written for Linux only (bridge_quiet_linux.go): elsewhere
// the tab's packets are read from the ICE socket as they come.
type quietSock struct{ peer netip.AddrPort }

var errQuietUnsupported = errors.New("audio: no quiet socket on this system")

func openQuiet(*localOnly, netip.AddrPort) (quietSock, error) {
	return quietSock{}, errQuietUnsupported
}

func (quietSock) isOpen() bool            { return false }
func (quietSock) recv([]byte) (int, bool) { return 0, false }
func (quietSock) send([]byte) bool        { return false }
func (quietSock) close()                  {}

func quietWatch(period time.Duration, tick func() bool) { tickWatch(period, tick) }
