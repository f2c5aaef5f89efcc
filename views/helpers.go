package views

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/softphone/softphone/store"
)

// audioJSON hands the saved device choice and volumes to phone.ts.
func audioJSON(a store.AudioSettings) string {
	b, err := json.Marshal(map[string]any{
		"microphone": a.Microphone, "speaker": a.Speaker, "ringer": a.Ringer,
		"mic_volume": a.MicVolume, "speaker_volume": a.SpeakerVolume, "ringer_volume": a.RingerVolume,
	})
	if err != nil {
		return "{}"
	}
	return string(b)
}

// HotkeysJSON hands the hotkeys to phone.ts.
func HotkeysJSON(h store.HotkeySettings) string {
	b, err := json.Marshal(map[string]string{"answer": h.Answer, "hangup": h.Hangup, "hold": h.Hold, "mute": h.Mute})
	if err != nil {
		return "{}"
	}
	return string(b)
}

// duration formats seconds as m:ss or h:mm:ss.
func duration(s float64) string {
	d := time.Duration(s * float64(time.Second)).Round(time.Second)
	h, m, sec := int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60
	if h > 0 {
		return fmt.Sprintf("%d:%02d:%02d", h, m, sec)
	}
	return fmt.Sprintf("%d:%02d", m, sec)
}

// when formats a moment in local time.
func when(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Local().Format("2006-01-02 15:04")
}

func percent(f float64) string { return fmt.Sprintf("%.1f %%", f*100) }

func millis(f float64) string { return fmt.Sprintf("%.0f ms", f) }

func jsonMarshal(v any) (string, error) {
	b, err := json.Marshal(v)
	return string(b), err
}

func boolAttr(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func describedBy(key, hint string, errs Errors) string {
	s := ""
	if hint != "" {
		s = "hint-" + key
	}
	if errs[key] != "" {
		if s != "" {
			s += " "
		}
		s += "err-" + key
	}
	return s
}

// desktopState words one desktop integration's state.
func desktopState(l L, i DesktopItem) string {
	switch i.State {
	case "ours":
		return l.F("desktop.yes", i.Where)
	case "other":
		return l.F("desktop.elsewhere", i.Where)
	}
	return l.T("desktop.no")
}

// ImportMax bounds a contacts file (about 40,000 vCards): the page's file
// field carries it (data-max) and refuses a larger file before it is sent;
// the server refuses one all the same. The server's body limit (8 MiB)
// leaves room for the form around it.
const ImportMax = 4 << 20
