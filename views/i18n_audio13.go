package views

func init() {
	for k, v := range enAudio13 {
		en[k] = v
	}
	for k, v := range deAudio13 {
		de[k] = v
	}
}

// enAudio13 is the header's prompt when the browser holds the page's sound
// (autoplay policy: a call placed through the API into a page never clicked).
var enAudio13 = map[string]string{
	"audio.autoplay": "Click to hear the call",
}

var deAudio13 = map[string]string{
	"audio.autoplay": "Klicken, um den Anruf zu hören",
}
