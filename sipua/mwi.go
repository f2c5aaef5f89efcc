package sipua

import (
	"bufio"
	"bytes"
	"strconv"
	"strings"
)

// Voicemail is the message count of an account's mailbox (RFC 3842).
type Voicemail struct {
	New int `json:"new"`
	Old int `json:"old"`
}

// maxMWILines bounds how many lines of a message-summary body are read.
const maxMWILines = 64

// parseMessageSummary reads an application/simple-message-summary body
// (RFC 3842 5.2): the Voice-Message counts "new/old (urgent new/urgent
// old)"; without that line, "Messages-Waiting: no" is 0/0 and "yes" is one
// new message (the notifier said there is something, not how much).
func parseMessageSummary(body []byte) (Voicemail, bool) {
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(make([]byte, 0, 1024), 4096)
	waiting, seenWaiting := false, false
	var vm Voicemail
	seenVoice := false
	for n := 0; sc.Scan() && n < maxMWILines; n++ {
		name, val, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		val = strings.TrimSpace(val)
		switch strings.ToLower(strings.TrimSpace(name)) {
		case "messages-waiting":
			seenWaiting = true
			waiting = strings.EqualFold(val, "yes")
		case "voice-message":
			counts, _, _ := strings.Cut(val, "(")
			nw, od, ok := strings.Cut(strings.TrimSpace(counts), "/")
			a, e1 := strconv.Atoi(strings.TrimSpace(nw))
			b, e2 := strconv.Atoi(strings.TrimSpace(od))
			if ok && e1 == nil && e2 == nil && a >= 0 && b >= 0 {
				vm, seenVoice = Voicemail{New: a, Old: b}, true
			}
		}
	}
	switch {
	case seenVoice:
		return vm, true
	case seenWaiting && waiting:
		return Voicemail{New: 1}, true
	case seenWaiting:
		return Voicemail{}, true
	}
	return Voicemail{}, false
}
