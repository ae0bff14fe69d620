package report

import (
	"fmt"
	"sort"
	"strings"

	"github.com/monkbrowse/monkbrowse/bench/internal/run"
	"github.com/monkbrowse/monkbrowse/bench/internal/servers"
)

// AppsTable renders the apps corpus (issue 41): per task and server whether
// the task was done (read from the app's own state) and the text its calls
// returned; then the count per server and why each failure failed.
func AppsTable(r *run.AppResults) string {
	var keys []string
	label := map[string]string{}
	for _, k := range []string{servers.Monkbrowse, servers.MonkbrowseDebugger, servers.Playwright, servers.ChromeDevtools} {
		for _, s := range r.Servers {
			if s.Key == k {
				keys = append(keys, k)
				label[k] = shortLabel(s)
				if k == servers.MonkbrowseDebugger {
					label[k] = "monkbrowse, debugger on"
				}
			}
		}
	}
	by := map[[2]string]run.AppSample{}
	for _, s := range r.Samples {
		by[[2]string{s.Server, s.Task}] = s
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## Apps corpus: tasks completed, text per task\n\n")
	fmt.Fprintf(&b, "%d tasks on the pages of `e2e/libpages` (tasks in `e2e/libpages/apps.json`), each driven as an AI would "+
		"(snapshot, then an action by ref or viewport point) and judged by the app's own state; monkbrowse with its defaults "+
		"(no debugger) and, where run, with the person's debugger switch on. Text: every byte of text the task's calls returned (navigation included), with the number of calls. "+
		"✔ done, ✘ not done (why: below).\n\n", len(r.Tasks))
	fmt.Fprintf(&b, "| task | libraries | %s |\n|---|---|%s\n", join(keys, func(k string) string { return label[k] }), strings.Repeat("---|", len(keys)))
	done := map[string]int{}
	bytes := map[string][]int{}
	for _, t := range r.Tasks {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", t.Name, strings.Join(t.Libs, ", "), join(keys, func(k string) string {
			s, ok := by[[2]string{k, t.Name}]
			if !ok {
				return "—"
			}
			mark := "✘"
			if s.OK {
				mark = "✔"
				done[k]++
				bytes[k] = append(bytes[k], s.TextBytes)
			}
			return fmt.Sprintf("%s %s (%d calls)", mark, kb(s.TextBytes), s.Calls)
		}))
	}
	fmt.Fprintf(&b, "| **completed** | | %s |\n", join(keys, func(k string) string {
		med := ""
		if n := len(bytes[k]); n > 0 {
			sort.Ints(bytes[k])
			med = fmt.Sprintf(", median text of a completed task %s", kb(bytes[k][n/2]))
		}
		return fmt.Sprintf("**%d / %d**%s", done[k], len(r.Tasks), med)
	}))
	fmt.Fprintf(&b, "\nWhy each ✘:\n\n")
	for _, t := range r.Tasks {
		for _, k := range keys {
			if s, ok := by[[2]string{k, t.Name}]; ok && !s.OK {
				fmt.Fprintf(&b, "- %s, %s: %s\n", t.Name, label[k], oneLine(s.Error, 240))
			}
		}
	}
	return b.String()
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return strings.ReplaceAll(s, "|", "\\|")
}
