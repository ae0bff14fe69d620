package netguard

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/rs/zerolog"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// MaxLogField bounds each string field of a refusal line (issue 40: a Host
// or Origin header of ~900 KiB went whole into the AI app's log).
const MaxLogField = 256

// Fields adds the fields of one refusal line. Every string is cut to
// MaxLogField bytes (protocol.Cut): what an unproven client sent never
// goes into the log whole.
type Fields struct{ e *zerolog.Event }

// Str adds a string field, cut.
func (f Fields) Str(key, val string) Fields {
	f.e.Str(key, protocol.Cut(val, MaxLogField))
	return f
}

// Int adds an integer field.
func (f Fields) Int(key string, val int) Fields {
	f.e.Int(key, val)
	return f
}

// Refusals is the one refusal log of a port (issue 23): every refused
// request, upgrade, hello or proof is counted, and at most one warning line
// a second is written, carrying how many refusals it stands for. A flood of
// refused connections therefore costs the AI app's MCP log one line a
// second. Safe for concurrent use; the zero value is not usable (see
// NewRefusals).
type Refusals struct {
	log   zerolog.Logger
	every Every
	total atomic.Int64

	mu      sync.Mutex
	changed chan struct{} // closed at the next refusal; nil while no one waits
}

// NewRefusals returns a refusal log writing to log.
func NewRefusals(log zerolog.Logger) *Refusals {
	return &Refusals{log: log, every: Every{Interval: time.Second}}
}

// Refused counts one refusal and, unless a line was written less than a
// second ago, logs msg with the fields add sets (nil: none; each string
// cut, see Fields), "alsoRefused" (the refusals not logged since the last
// line) and "refusedSinceStart".
func (r *Refusals) Refused(msg string, add func(Fields)) {
	n := r.total.Add(1)
	r.mu.Lock()
	if r.changed != nil {
		close(r.changed)
		r.changed = nil
	}
	r.mu.Unlock()
	ok, held := r.every.Allow()
	if !ok {
		return
	}
	ev := r.log.Warn()
	if add != nil {
		add(Fields{ev})
	}
	ev.Int("alsoRefused", held).Int64("refusedSinceStart", n).Msg(msg)
}

// Total is how many refusals were counted.
func (r *Refusals) Total() int64 { return r.total.Load() }

// Changed returns a channel closed at the next refusal counted: a caller
// waiting for Total to reach a number re-checks it each time.
func (r *Refusals) Changed() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.changed == nil {
		r.changed = make(chan struct{})
	}
	return r.changed
}
