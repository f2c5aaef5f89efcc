package views

// Texts of the recording page's transcript (branch audit-pending): a
// pending transcript waits its turn; "being made" is the running one's.
var pendingEN = map[string]string{
	"rec.tr.waiting": "The transcript is waiting to be made: it is made after those asked for before it.",
}

var pendingDE = map[string]string{
	"rec.tr.waiting": "Die Abschrift wartet darauf, erstellt zu werden: Sie wird nach den zuvor angeforderten erstellt.",
}

func init() {
	for k, v := range pendingEN {
		en[k] = v
	}
	for k, v := range pendingDE {
		de[k] = v
	}
}
