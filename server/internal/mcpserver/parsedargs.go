package mcpserver

import (
	"encoding/json"

	"github.com/mark3labs/mcp-go/mcp"
)

// parsedArgs is the order's view of a tools/call that mcp-go has parsed
// (HTTP, an in-process client): the fields read from the value mcp-go
// decoded from RawArguments, so the arguments are not decoded again to
// find the call's turn. What it reads is what callArgs reads from the same
// JSON (the same decoder's types: string, float64, bool, map, list), with
// one difference that only matters to a call that fails anyway: a field
// spelt in another case ("Tab") is not the tab here, where a struct field
// took it; the dispatcher refuses it as an unknown field, and meanwhile
// the call waits as one with the tab omitted, which orders it after more
// calls, never fewer.
//
// An in-process client's Go value, which no JSON was read for (no
// RawArguments), goes through callArgs as before, so its numbers compare
// as JSON's would.
func parsedArgs(req mcp.CallToolRequest) callArgs {
	if len(req.Params.RawArguments) == 0 {
		var a callArgs
		raw, _ := rawArgs(req)
		_ = a.UnmarshalJSON(raw)
		return a
	}
	switch v := req.Params.Arguments.(type) {
	case nil: // null
		return callArgs{}
	case map[string]any:
		return callArgs{profile: v["profile"], tab: v["tab"], text: v["text"]}
	case json.RawMessage:
		// Not decoded (a caller that set Arguments to the raw JSON).
		var a callArgs
		_ = a.UnmarshalJSON(v)
		return a
	default: // a list, string, number or boolean: not an object
		return callArgs{bad: true}
	}
}
