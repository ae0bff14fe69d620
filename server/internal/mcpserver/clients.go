package mcpserver

import (
	"context"
	"os"
	"sort"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/server"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// clients are the MCP sessions open on a Server (over HTTP, one per
// connected AI app), for `monkbrowse doctor` (issue 45): the name each
// gave in initialize, since when, and how many tool calls it made. A
// session is listed from its initialize until mcp-go ends it (closed or
// idle).
type clients struct {
	mu   sync.Mutex
	byID map[string]*clientRec
}

type clientRec struct {
	name  string
	since time.Time
	calls int
}

// hook forgets the sessions mcp-go ends.
func (c *clients) hook(hooks *server.Hooks) {
	c.byID = map[string]*clientRec{}
	hooks.AddOnUnregisterSession(func(_ context.Context, sess server.ClientSession) {
		c.mu.Lock()
		delete(c.byID, sess.SessionID())
		c.mu.Unlock()
	})
}

// initialized records ctx's session under the name its client gave.
func (c *clients) initialized(ctx context.Context, name string, now time.Time) {
	id := sessionID(ctx)
	if id == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.byID[id] = &clientRec{name: protocol.AppDisplayName(name, os.Getpid()), since: now}
}

// called counts a tool call of ctx's session.
func (c *clients) called(ctx context.Context) {
	id := sessionID(ctx)
	if id == "" {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if r := c.byID[id]; r != nil {
		r.calls++
	}
}

// Clients lists the AI apps connected (MCP sessions open), oldest first.
func (s *Server) Clients() []protocol.HTTPClientInfo {
	c := &s.clients
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]protocol.HTTPClientInfo, 0, len(c.byID))
	for _, r := range c.byID {
		out = append(out, protocol.HTTPClientInfo{Name: r.name, Since: r.since.UnixMilli(), Calls: r.calls})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Since != out[j].Since {
			return out[i].Since < out[j].Since
		}
		return out[i].Name < out[j].Name
	})
	return out
}
