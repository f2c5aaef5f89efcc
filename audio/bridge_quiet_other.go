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

// quietTimer is never made where no quiet socket is.
type quietTimer struct{}

func newQuietTimer(func()) (*quietTimer, error) { return nil, errQuietUnsupported }

func (*quietTimer) arm(time.Duration) {}
func (*quietTimer) close()            {}
