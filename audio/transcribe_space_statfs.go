//go:build linux || darwin

package audio

import "syscall"

// freeSpace is how many bytes the user may still write on dir's disk.
func freeSpace(dir string) (int64, bool) {
	var fs syscall.Statfs_t
	if err := syscall.Statfs(dir, &fs); err != nil {
		return 0, false
	}
	return int64(fs.Bavail) * int64(fs.Bsize), true
}
