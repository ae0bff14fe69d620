package owner

import (
	"regexp"
	"strconv"
	"strings"

	"github.com/monkbrowse/monkbrowse/protocol"
)

var generatedLabel = regexp.MustCompile(`^chrome-[0-9]+$`)

func (r *registry) slugFreeLocked(slug, self string) bool {
	for _, p := range r.profiles {
		if p.id != self && p.slug == slug {
			return false
		}
	}
	return true
}

func (r *registry) labelFreeLocked(label, self string) bool {
	for _, p := range r.profiles {
		if p.id != self && strings.EqualFold(p.label, label) {
			return false
		}
	}
	return true
}

func (r *registry) uniqueSlugLocked(base, self string) string {
	if r.slugFreeLocked(base, self) {
		return base
	}
	for n := 2; ; n++ {
		suffix := "-" + strconv.Itoa(n)
		b := base
		if len(b)+len(suffix) > protocol.MaxSlugLen {
			b = strings.TrimRight(b[:protocol.MaxSlugLen-len(suffix)], "-")
		}
		if s := b + suffix; r.slugFreeLocked(s, self) {
			return s
		}
	}
}

func (r *registry) generateLabelLocked(self string) string {
	for {
		r.labelSeq++
		l := "chrome-" + strconv.Itoa(r.labelSeq)
		if r.labelFreeLocked(l, self) && r.slugFreeLocked(l, self) {
			return l
		}
	}
}
