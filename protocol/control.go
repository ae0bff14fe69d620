package protocol

import "encoding/json"

// Control messages between the owner and its forwarders on the control port
// (DESIGN §5.4). Same envelope as the extension socket.
const (
	MsgFwdHello     = "fwd_hello"
	MsgCallTool     = "call_tool"
	MsgOwnerLeaving = "owner_leaving"
)

// FwdHello is the first request of a forwarder. Token is the contents of
// ~/.monkbrowse/control-token, which only the same user can read.
type FwdHello struct {
	PID     int    `json:"pid"`
	Version string `json:"version"`
	Token   string `json:"token"`
}

// FwdHelloAck answers FwdHello. A rejected forwarder's socket is closed.
type FwdHelloAck struct {
	OK      bool   `json:"ok"`
	Version string `json:"version"`
	Reason  string `json:"reason,omitempty"`
}

// CallTool asks the owner to run an AI-facing tool exactly as a local call.
// Args is the tool's arguments object as the MCP client sent it.
type CallTool struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

// ContentItem is one MCP content item: {"type":"text","text":…} or
// {"type":"image","data":…,"mimeType":…}.
type ContentItem struct {
	Type     string `json:"type"`
	Text     string `json:"text,omitempty"`
	Data     string `json:"data,omitempty"`
	MimeType string `json:"mimeType,omitempty"`
}

// CallToolResult is the owner's answer to CallTool.
type CallToolResult struct {
	Content []ContentItem `json:"content"`
	IsError bool          `json:"isError,omitempty"`
}

// OwnerLeaving is notified by an owner that is releasing its ports.
type OwnerLeaving struct{}
