package store

import (
	"os"
	"path/filepath"
)

// Leftovers of a run that was killed (issue 14): the temporary file of a
// settings save interrupted before its rename (".settings.json.tmp-*", see
// writeFileAtomic) and the disk-full probe (".disk-probe-*", disk.go). They
// are removed at the next start; nothing else writes them (one phone per
// home). A save that fails removes its own.

// removeLeftovers removes files matching pattern in dir; it reports how
// many it removed.
func removeLeftovers(dir, pattern string) int {
	matches, _ := filepath.Glob(filepath.Join(dir, pattern))
	n := 0
	for _, m := range matches {
		if st, err := os.Lstat(m); err == nil && st.Mode().IsRegular() && os.Remove(m) == nil {
			n++
		}
	}
	return n
}

// settingsLeftovers is the pattern of writeFileAtomic's temporary files for
// the settings file at path.
func settingsLeftovers(path string) string { return "." + filepath.Base(path) + ".tmp-*" }

// RemoveSecretsLeftovers removes the temporary files of secrets.json saves
// a kill cut short (writeFileAtomic's, as for settings.json): each holds
// every secret of its moment, so a secret deleted since would live on in
// it. The phone calls it at start, holding the home's lock; a secret
// command running at that very moment may have its save refused (and says
// so). It reports how many it removed.
func RemoveSecretsLeftovers(home string) int {
	return removeLeftovers(home, "."+SecretsFile+".tmp-*")
}
