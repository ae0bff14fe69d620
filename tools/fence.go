package tools

import "strings"

// fenced renders page text inside a Markdown code fence with info string
// info: the fence is one backtick longer than the longest run of backticks
// in body (at least three), so no line of the page's can close it and
// speak after it as monkbrowse (issue 40). The closing fence is the result's
// own line.
func fenced(info, body string) string {
	longest, run := 0, 0
	for i := 0; i < len(body); i++ {
		if body[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	return fence + info + "\n" + body + "\n" + fence
}
