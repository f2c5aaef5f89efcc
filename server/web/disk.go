package web

import (
	"github.com/a-h/templ"

	"github.com/softphone/softphone/views"
)

// diskWatch is the disk-full state of the store (*store.DB): the pages show
// a banner while history and recordings cannot be saved (issue 14).
type diskWatch interface {
	DiskFull() bool
	OnDiskFull(fn func(full bool))
}

// diskFull tells whether the banner is up.
func (s *Server) diskFull() bool {
	d, ok := s.cfg.DB.(diskWatch)
	return ok && d.DiskFull()
}

// watchDisk wakes the live streams when the state changes, so open pages
// show or drop the banner at once ("disk" event).
func (s *Server) watchDisk() {
	if d, ok := s.cfg.DB.(diskWatch); ok {
		d.OnDiskFull(func(bool) { s.hub.poke() })
	}
}

func diskFragment(s *Server) templ.Component {
	return views.DiskBanner(s.lang(), s.diskFull())
}
