// Package run drives the side-by-side benchmark: it starts the three MCP
// servers (monkbrowse with its extension in headless Chromium, Playwright
// MCP, chrome-devtools-mcp), runs the same task on the same pages through
// each with one MCP client, checks every step's effect in the page, and
// records latencies, result sizes and the servers' start-up time and memory.
package run

import (
	"encoding/json"
	"os"
	"time"

	"github.com/monkbrowse/monkbrowse/bench/internal/snapshot"
)

// Sample is one timed step.
type Sample struct {
	Server string `json:"server"`
	Page   string `json:"page"`
	Step   string `json:"step"`
	Rep    int    `json:"rep"`
	// Ms is the tools/call round trip seen by the client.
	Ms float64 `json:"ms"`
	// TextBytes is the size of the result's text items; ImageBytes of its
	// images (decoded), with the first image's pixel size.
	TextBytes  int `json:"textBytes"`
	ImageBytes int `json:"imageBytes,omitempty"`
	ImageW     int `json:"imageW,omitempty"`
	ImageH     int `json:"imageH,omitempty"`
	// FindCalls are the find calls the snapshot step made for targets its
	// snapshot left out (monkbrowse's browser_find), already counted in
	// Ms and TextBytes; FindMs and FindBytes are their share.
	FindCalls int     `json:"findCalls,omitempty"`
	FindMs    float64 `json:"findMs,omitempty"`
	FindBytes int     `json:"findBytes,omitempty"`
	// OK says the step took effect (checked in the page, see the report).
	OK bool `json:"ok"`
	// Skipped: the step could not run (an earlier step failed); Ms is 0.
	Skipped bool   `json:"skipped,omitempty"`
	Error   string `json:"error,omitempty"`
}

// Shot is one screenshot in a given format (the formats round: each
// server's viewport capture in every format it offers).
type Shot struct {
	Server string `json:"server"`
	Page   string `json:"page"`
	// Format labels the arguments ("jpeg (default)", "png", …).
	Format string  `json:"format"`
	Rep    int     `json:"rep"`
	Ms     float64 `json:"ms"`
	// TextBytes is the caption's size; ImageBytes the decoded image's.
	TextBytes  int    `json:"textBytes"`
	ImageBytes int    `json:"imageBytes"`
	MIME       string `json:"mime"`
	ImageW     int    `json:"imageW"`
	ImageH     int    `json:"imageH"`
	OK         bool   `json:"ok"`
	Error      string `json:"error,omitempty"`
}

// ServerResult is what was measured about one server as a process.
type ServerResult struct {
	Key     string   `json:"key"`
	Label   string   `json:"label"`
	Version string   `json:"version"`
	Command []string `json:"command"`
	// StartupMs are launch → initialize answered, one per fresh launch.
	StartupMs []float64 `json:"startupMs"`
	// IdleRSS is the server process's RSS one second after initialize,
	// before any tool call; AfterRSS after the whole run.
	IdleRSS  int64 `json:"idleRSS"`
	AfterRSS int64 `json:"afterRSS"`
	// BrowserPSS is the browser's process tree (PSS, shared pages split)
	// after the run.
	BrowserPSS int64 `json:"browserPSS"`
	// BrowserUSS is the same tree's private memory (not shared with any
	// other process).
	BrowserUSS int64 `json:"browserUSS"`
	// ColdNavigateMs is the session's first navigate, which for the npm
	// servers includes launching their browser.
	ColdNavigateMs float64  `json:"coldNavigateMs"`
	Tools          []string `json:"tools"`
	// ToolListBytes is the tools/list result's size on the wire, as the
	// server is configured in the benchmark (monkbrowse: its default, core
	// tools).
	ToolListBytes int    `json:"toolListBytes"`
	Error         string `json:"error,omitempty"`
}

// PageResult describes a page as benchmarked.
type PageResult struct {
	Key      string `json:"key"`
	Title    string `json:"title"`
	File     string `json:"file"`
	About    string `json:"about"`
	Elements int    `json:"elements"`
}

// Results is everything one run measured.
type Results struct {
	Started  time.Time      `json:"started"`
	Duration float64        `json:"durationSeconds"`
	Reps     int            `json:"reps"`
	Warmup   int            `json:"warmup"`
	Pages    []PageResult   `json:"pages"`
	Servers  []ServerResult `json:"servers"`
	Samples  []Sample       `json:"samples"`
	// Shots are the formats round's screenshots.
	Shots []Shot `json:"shots,omitempty"`
	// Interactive is, per page and server, the (role, name) set of the
	// interactive elements in the server's snapshot.
	Interactive map[string]map[string][]snapshot.RoleName `json:"interactive"`
	// Budgeted is, per page, whether monkbrowse's snapshot there was cut to
	// its token budget (the rest served by cursor or browser_find), so the
	// report does not count what it left out as elements it cannot name.
	Budgeted map[string]bool `json:"budgeted,omitempty"`
	// Load is /proc/loadavg before and after.
	LoadBefore string `json:"loadBefore"`
	LoadAfter  string `json:"loadAfter"`
	// Busy is the share of CPU time the machine spent outside idle during
	// the run (all processes, from /proc/stat).
	Busy float64 `json:"busy"`
}

// Save writes r as JSON.
func (r *Results) Save(path string) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}

// Load reads results written by Save.
func Load(path string) (*Results, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Results
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, err
	}
	return &r, nil
}
