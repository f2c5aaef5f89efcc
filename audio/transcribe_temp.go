package audio

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/softphone/softphone/internal/diskfull"
)

// The mono copies of a recording's channels that the recogniser reads (and
// pocketsphinx's squeezed copy of each) are written beside the recording, in
// a folder of their own under <home>/recordings, not in os.TempDir(): that is
// often a tmpfs (RAM: a 4 h recording's copies are about 450 MB of memory) or
// a /tmp shared with the machine's other users. A phone killed during a
// transcript leaves its folder behind; the next start removes it
// (RemoveTranscriptLeftovers).

// transcriptTempPrefix begins the name of a transcript's temporary folder.
const transcriptTempPrefix = ".transcript-"

// transcriptKeep is the room a transcript leaves free on the recordings'
// disk: its copies must not take the space the recordings of calls under
// way and the database write into (a recording stops when its disk is
// full). 64 MiB is 17 minutes of a call's recording.
const transcriptKeep = 64 << 20

// diskFree is freeSpace; a test puts in a system's that does not know it.
var diskFree = freeSpace

// transcriptTemp makes the temporary folder of one transcript beside the
// recording at path, whose copies take need bytes; when the disk's free
// space is known and would fall below transcriptKeep, the transcript is
// refused as the disk being full before anything is written.
func transcriptTemp(path string, need int64) (string, error) {
	if free, ok := diskFree(filepath.Dir(path)); ok && free < need+transcriptKeep {
		return "", fmt.Errorf("%w: the disk of the recordings is full: the copies of the channels the recogniser reads need %d MB and %d MB are kept free for calls, %d MB are free; free some space",
			ErrTranscribe, (need+1<<20-1)>>20, transcriptKeep>>20, free>>20)
	}
	dir, err := os.MkdirTemp(filepath.Dir(path), transcriptTempPrefix)
	if err != nil {
		return "", tempError(err)
	}
	return dir, nil
}

// RemoveTranscriptLeftovers removes the temporary folders of transcripts a
// kill cut short from the recordings folder dir (<home>/recordings). The
// phone calls it at start, before any transcript runs; it reports how many
// it removed.
func RemoveTranscriptLeftovers(dir string) int {
	matches, _ := filepath.Glob(filepath.Join(dir, transcriptTempPrefix+"*"))
	n := 0
	for _, m := range matches {
		if st, err := os.Lstat(m); err == nil && st.IsDir() && os.RemoveAll(m) == nil {
			n++
		}
	}
	return n
}

// tempError is the transcript's error for a copy that could not be
// written: a full disk in words the recordings page can show.
func tempError(err error) error {
	if diskfull.Is(err) {
		return fmt.Errorf("%w: the disk of the recordings is full: no room for the copies of the channels the recogniser reads; free some space", ErrTranscribe)
	}
	return fmt.Errorf("%w: %v", ErrTranscribe, err)
}
