package report

import (
	"strings"
	"testing"

	"github.com/monkbrowse/monkbrowse/bench/internal/run"
	"github.com/monkbrowse/monkbrowse/bench/internal/servers"
)

// The apps table counts a task done only when its sample is OK, shows each
// server's text and calls, and says why each failure failed.
func TestAppsTable(t *testing.T) {
	r := &run.AppResults{
		Tasks:   []run.AppTask{{Name: "grid", Libs: []string{"ag-grid-community"}}, {Name: "board", Libs: []string{"konva"}}},
		Servers: []run.ServerResult{{Key: servers.Monkbrowse}, {Key: servers.Playwright}},
		Samples: []run.AppSample{
			{Server: servers.Monkbrowse, Task: "grid", OK: true, Calls: 3, TextBytes: 1500},
			{Server: servers.Monkbrowse, Task: "board", Error: "step 1: no | tool", Calls: 1, TextBytes: 200},
			{Server: servers.Playwright, Task: "grid", OK: true, Calls: 4, TextBytes: 900},
			{Server: servers.Playwright, Task: "board", OK: true, Calls: 2, TextBytes: 700},
		},
	}
	md := AppsTable(r)
	for _, want := range []string{
		"| task | libraries | monkbrowse | Playwright |",
		"| grid | ag-grid-community | ✔ 1.5 kB (3 calls) | ✔ 900 B (4 calls) |",
		"| board | konva | ✘ 200 B (1 calls) | ✔ 700 B (2 calls) |",
		"**1 / 2**, median text of a completed task 1.5 kB",
		"**2 / 2**, median text of a completed task 900 B",
		"- board, monkbrowse: step 1: no \\| tool",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the table lacks %q:\n%s", want, md)
		}
	}
}
