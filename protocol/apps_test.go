package protocol

import "testing"

func TestAppDisplayName(t *testing.T) {
	cases := []struct {
		client string
		pid    int
		want   string
	}{
		{"claude-code", 1, "Claude Code"},
		{"Cursor", 1, "Cursor"},
		{"  ", 42, "AI app (pid 42)"},
		{"", 7, "AI app (pid 7)"},
		{"my-agent\x1b[31m", 1, "my-agent[31m"},
		{"a-very-long-name-that-goes-on-and-on-and-on-and-on-and-on-and-on", 1, "a-very-long-name-that-goes-on-and-on-and-on-and-on-and-on-a…"},
	}
	for _, c := range cases {
		if got := AppDisplayName(c.client, c.pid); got != c.want {
			t.Errorf("AppDisplayName(%q, %d) = %q, want %q", c.client, c.pid, got, c.want)
		}
	}
}
