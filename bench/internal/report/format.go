package report

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/monkbrowse/monkbrowse/bench/internal/run"
	"github.com/monkbrowse/monkbrowse/bench/internal/servers"
	"github.com/monkbrowse/monkbrowse/bench/internal/snapshot"
)

func head(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "")
}

func fmtMs(v float64) string {
	switch {
	case math.IsNaN(v):
		return "–"
	case v < 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.0f", v)
	}
}

func ratio(a, b float64) string {
	if b == 0 || math.IsNaN(a) || math.IsNaN(b) {
		return "–"
	}
	return fmt.Sprintf("%.2f×", a/b)
}

func kb(b int) string {
	if b < 1000 {
		return fmt.Sprintf("%d B", b)
	}
	return fmt.Sprintf("%.1f kB", float64(b)/1000)
}

func mib(b int64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }

func serverKeys(r *run.Results) []string {
	var keys []string
	for _, k := range []string{servers.Monkbrowse, servers.Playwright, servers.ChromeDevtools} {
		for _, s := range r.Servers {
			if s.Key == k {
				keys = append(keys, k)
			}
		}
	}
	return keys
}

func shortLabel(s run.ServerResult) string {
	switch s.Key {
	case servers.Playwright:
		return "Playwright"
	case servers.ChromeDevtools:
		return "chrome-devtools"
	}
	return s.Key
}

func shortKey(k string) string {
	switch k {
	case servers.Monkbrowse:
		return "mb"
	case servers.Playwright:
		return "PW"
	case servers.ChromeDevtools:
		return "CD"
	}
	return k
}

func join(keys []string, f func(string) string) string {
	var out []string
	for _, k := range keys {
		out = append(out, f(k))
	}
	return strings.Join(out, " | ")
}

func list(rs []snapshot.RoleName) string {
	if len(rs) == 0 {
		return "none"
	}
	return strings.Join(cells(rs), ", ")
}

// listCapped is list with at most listCap items shown.
func listCapped(rs []snapshot.RoleName) string {
	if len(rs) == 0 {
		return "none"
	}
	return strings.Join(capped(cells(rs)), ", ")
}

func cells(rs []snapshot.RoleName) []string {
	out := make([]string, 0, len(rs))
	for _, r := range rs {
		out = append(out, strings.ReplaceAll(r.String(), "|", `\|`))
	}
	return out
}

// listCap is how many items of a list a table cell shows; the rest are counted.
const listCap = 8

// capped is items, or its first listCap and how many more there are.
func capped(items []string) []string {
	if len(items) <= listCap+1 {
		return items
	}
	return append(items[:listCap:listCap], fmt.Sprintf("… %d more (%d in all)", len(items)-listCap, len(items)))
}

func sortedRoles() []string {
	var out []string
	for r := range snapshot.InteractiveRoles {
		out = append(out, r)
	}
	sort.Strings(out)
	return out
}

func short(load string) string {
	f := strings.Fields(load)
	if len(f) >= 3 {
		return strings.Join(f[:3], " ")
	}
	return load
}

func first(load string) string {
	f := strings.Fields(load)
	if len(f) > 0 {
		return f[0]
	}
	return "?"
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

func mapKeys(keys []string, f func(string) string) []string {
	var out []string
	for _, k := range keys {
		out = append(out, f(k))
	}
	return out
}
