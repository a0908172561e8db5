package analyze

// SetBeforeFile sets the hook Write calls before each file (nil: none)
// and returns a function that restores the previous one.
func SetBeforeFile(f func(name string) error) (restore func()) {
	prev := beforeFile
	beforeFile = f
	return func() { beforeFile = prev }
}

// PartialMonths is partialMonths, for tests.
var PartialMonths = partialMonths
