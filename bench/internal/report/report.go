// Package report turns benchmark results into BENCHMARKS.md.
package report

import (
	"strings"

	"github.com/monkbrowse/monkbrowse/bench/internal/run"
)

// Machine is the notes scripts/bench collects, in order.
type Machine [][2]string

// ParseMachine reads "key: value" lines.
func ParseMachine(s string) Machine {
	var m Machine
	for _, line := range strings.Split(s, "\n") {
		k, v, ok := strings.Cut(line, ":")
		if ok {
			m = append(m, [2]string{strings.TrimSpace(k), strings.TrimSpace(v)})
		}
	}
	return m
}

// Write renders the report.
func Write(r *run.Results, benchstat string, m Machine) string { return "" }
