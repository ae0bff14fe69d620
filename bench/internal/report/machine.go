package report

import (
	"strings"
)

// Machine is the notes scripts/bench collects, in order.
type Machine [][2]string

// ParseMachine reads "key: value" lines.
func ParseMachine(s string) Machine {
	var m Machine
	for _, line := range strings.Split(s, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if ok && strings.TrimSpace(k) != "" {
			m = append(m, [2]string{strings.TrimSpace(k), strings.TrimSpace(v)})
		}
	}
	return m
}

// Get returns the value of key, or "".
func (m Machine) Get(key string) string {
	for _, kv := range m {
		if kv[0] == key {
			return kv[1]
		}
	}
	return ""
}
