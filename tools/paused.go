package tools

// PausedError is a request the extension refused or stopped because the
// person pressed Stop in the popup (code paused, issue 28). Message is the
// extension's own sentence (no page content). Waits that poll the page end
// at once on it instead of polling until their time is up.
type PausedError struct {
	Message string
}

func (e *PausedError) Error() string { return e.Message }
