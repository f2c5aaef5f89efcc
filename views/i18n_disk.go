package views

// The disk-full banner (issue 14), in both languages; the English text is
// the issue's.
func init() {
	en["disk.full"] = "The disk is full: history and recordings cannot be saved"
	de["disk.full"] = "Der Datenträger ist voll: Verlauf und Aufnahmen können nicht gespeichert werden"
}
