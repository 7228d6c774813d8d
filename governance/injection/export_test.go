package injection

// FastSignalMismatch returns the name of the first signal whose fast
// matcher and regexp disagree on text, or "" (for the external tests,
// which read the development sets through package train).
func FastSignalMismatch(text string) string {
	for si, f := range fastSignals() {
		if f != nil && f(text) != signalREs[si].re.MatchString(text) {
			return signalREs[si].name
		}
	}
	return ""
}
