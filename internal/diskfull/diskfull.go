// Package diskfull tells a write refused for want of space from other
// failures, for the packages that write files (store, audio), which
// import nothing of each other's.
package diskfull

import (
	"errors"
	"strings"
	"syscall"
)

// Is tells whether err says the disk (or the quota) is full: ENOSPC, an
// exceeded quota, or the Windows text of ERROR_DISK_FULL ("not enough
// space on the disk").
func Is(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, syscall.ENOSPC) {
		return true
	}
	s := strings.ToLower(err.Error())
	return strings.Contains(s, "no space left") || strings.Contains(s, "not enough space on the disk") ||
		strings.Contains(s, "disk quota exceeded")
}
