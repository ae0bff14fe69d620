package tools

import (
	"strings"
	"testing"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// TestFormatNetworkBounded: many requests and large bodies still make a
// bounded answer that says what was left out and how to read on.
func TestFormatNetworkBounded(t *testing.T) {
	var reqs []protocol.NetworkRequest
	for i := 1; i <= 400; i++ {
		reqs = append(reqs, protocol.NetworkRequest{ID: i, Method: "GET", URL: "https://a.test/" + strings.Repeat("x", 1000), Type: "fetch", Status: 200, State: "done",
			Body: strings.Repeat("b", 5000)})
	}
	out := FormatNetwork("tab 1", protocol.NetworkRequestsArgs{IncludeBodies: true}, protocol.NetworkRequestsResult{Requests: reqs, Total: 400, Dropped: 3})
	if n := EstimateTokens(out); n > DefaultMaxTokens {
		t.Errorf("answer is ~%d tokens, over the budget of %d", n, DefaultMaxTokens)
	}
	for _, want := range []string{"the 250 oldest are left out (pass since=250", "3 earlier request(s) were forgotten", "#400 GET", "bodies in this answer reached their limit", "more are left out to stay within the 10,000-token budget"} {
		if !strings.Contains(out, want) {
			t.Errorf("answer lacks %q", want)
		}
	}
	if strings.Contains(out, "#250 GET") {
		t.Error("a left-out request is listed")
	}
}

func TestFormatNetworkStates(t *testing.T) {
	out := FormatNetwork("tab 2", protocol.NetworkRequestsArgs{Filter: "api"}, protocol.NetworkRequestsResult{URL: "https://a.test/", Total: 5, Requests: []protocol.NetworkRequest{
		{ID: 1, Method: "POST", URL: "https://a.test/api", Type: "xmlhttprequest", Status: 201, StatusText: "Created", Size: 2048, Duration: 12.4, State: "done"},
		{ID: 2, Method: "GET", URL: "https://ads.test/api", Type: "script", State: "failed", Error: "net::ERR_BLOCKED_BY_CLIENT"},
		{ID: 3, Method: "GET", URL: "https://a.test/api/slow", Type: "fetch", State: "pending"},
	}})
	for _, want := range []string{
		"3 request(s) in tab 2 since its page loaded, URL containing \"api\", oldest first:\n" + PageContentNote + "\n- Page URL: https://a.test/\n",
		"#1 POST https://a.test/api → 201 Created, xmlhttprequest, 2.0 kB, 12 ms",
		"#2 GET https://ads.test/api → blocked: net::ERR_BLOCKED_BY_CLIENT, script",
		"#3 GET https://a.test/api/slow → pending, fetch",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("answer lacks %q:\n%s", want, out)
		}
	}
	empty := FormatNetwork("tab 2", protocol.NetworkRequestsArgs{Since: 9}, protocol.NetworkRequestsResult{Total: 9})
	if !strings.Contains(empty, "No requests in tab 2") || !strings.Contains(empty, "numbered above #9") {
		t.Errorf("empty answer: %s", empty)
	}
}
