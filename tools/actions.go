package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/monkbrowse/monkbrowse/protocol"
)

func (d dispatch) navigate(ctx context.Context, a protocol.NavigateArgs) (protocol.CallToolResult, error) {
	url := normalizeURL(a.URL)
	if why := d.fileURLRefusal(url); why != "" {
		return protocol.CallToolResult{}, errors.New(why)
	}
	return d.act(ctx, a.Target, protocol.MsgNavigate,
		func(t Target) any { return protocol.NavigateRequest{URL: url, TabID: t.TabID} },
		// The URL is not echoed: the page header below says where the tab
		// is now (after any redirect).
		func(t Target) string { return fmt.Sprintf("Navigated %s.", t.String()) })
}

func simpleAction(typ, format string) func(dispatch, context.Context, protocol.TabArgs) (protocol.CallToolResult, error) {
	return func(d dispatch, ctx context.Context, a protocol.TabArgs) (protocol.CallToolResult, error) {
		return d.act(ctx, a.Target, typ, tabOnly, func(t Target) string { return fmt.Sprintf(format, t.String()) })
	}
}

// maxEchoElement clips the AI's description of an element where a result
// repeats it.
const maxEchoElement = 100

// actedOn names the element an action's result line reports: its ref
// alone. The AI's own description of it (the element argument) is in the
// call it just made; repeating it costs tokens in every result.
func actedOn(ref string) string { return ref }

func describe(element, ref string) string {
	if element == "" {
		return "element " + ref
	}
	return fmt.Sprintf("%q (ref %s)", clip(element, maxEchoElement), ref)
}

func elementAction(typ, verb string) func(dispatch, context.Context, protocol.ElementArgs) (protocol.CallToolResult, error) {
	return func(d dispatch, ctx context.Context, a protocol.ElementArgs) (protocol.CallToolResult, error) {
		return d.act(ctx, a.Target, typ,
			func(t Target) any {
				return protocol.ElementRequest{Ref: a.Ref, Element: a.Element, TabID: t.TabID}
			},
			func(t Target) string {
				return fmt.Sprintf("%s %s in %s.", verb, actedOn(a.Ref), t.String())
			})
	}
}

func (d dispatch) typeText(ctx context.Context, a protocol.TypeArgs) (protocol.CallToolResult, error) {
	return d.act(ctx, a.Target, protocol.MsgType,
		func(t Target) any {
			return protocol.TypeRequest{Ref: a.Ref, Element: a.Element, Text: a.Text, Submit: a.Submit, TabID: t.TabID}
		},
		func(t Target) string {
			s := fmt.Sprintf("Typed %q into %s in %s", clip(a.Text, maxEcho), actedOn(a.Ref), t.String())
			if a.Submit {
				s += " and pressed Enter"
			}
			return s + "."
		})
}

func (d dispatch) selectOption(ctx context.Context, a protocol.SelectOptionArgs) (protocol.CallToolResult, error) {
	return d.act(ctx, a.Target, protocol.MsgSelectOption,
		func(t Target) any {
			return protocol.SelectOptionRequest{Ref: a.Ref, Element: a.Element, Values: a.Values, TabID: t.TabID}
		},
		func(t Target) string {
			return fmt.Sprintf("Selected %s in %s in %s.", echoValues(a.Values), actedOn(a.Ref), t.String())
		})
}

func (d dispatch) pressKey(ctx context.Context, a protocol.PressKeyArgs) (protocol.CallToolResult, error) {
	return d.act(ctx, a.Target, protocol.MsgPressKey,
		func(t Target) any { return protocol.PressKeyRequest{Key: a.Key, TabID: t.TabID} },
		func(t Target) string { return fmt.Sprintf("Pressed %s in %s.", a.Key, t.String()) })
}

func (d dispatch) scroll(ctx context.Context, a protocol.ScrollArgs) (protocol.CallToolResult, error) {
	return d.act(ctx, a.Target, protocol.MsgScroll,
		func(t Target) any {
			return protocol.ScrollRequest{Direction: a.Direction, Amount: a.Amount, Ref: a.Ref, TabID: t.TabID}
		},
		func(t Target) string {
			if a.Ref != "" {
				return fmt.Sprintf("Scrolled %s into view in %s.", actedOn(a.Ref), t.String())
			}
			dir := a.Direction
			if dir == "" {
				dir = "down"
			}
			amount := "most of a screen"
			if a.Amount > 0 {
				amount = fmt.Sprintf("%d pixels", a.Amount)
			}
			return fmt.Sprintf("Scrolled %s by %s in %s.", dir, amount, t.String())
		})
}

func (d dispatch) drag(ctx context.Context, a protocol.DragArgs) (protocol.CallToolResult, error) {
	return d.act(ctx, a.Target, protocol.MsgDrag,
		func(t Target) any {
			return protocol.DragRequest{StartRef: a.StartRef, EndRef: a.EndRef, TabID: t.TabID}
		},
		func(t Target) string {
			return fmt.Sprintf("Dragged %s onto %s in %s.", actedOn(a.StartRef), actedOn(a.EndRef), t.String())
		})
}

func (d dispatch) uploadFile(ctx context.Context, a protocol.UploadFileArgs) (protocol.CallToolResult, error) {
	f, err := d.uploadOf(a.Path)
	if err != nil {
		return protocol.CallToolResult{}, err
	}
	return d.act(ctx, a.Target, protocol.MsgUploadFile,
		func(t Target) any {
			return protocol.UploadFileRequest{Ref: a.Ref, Name: f.Name, Data: f.Data, TabID: t.TabID}
		},
		func(t Target) string {
			return fmt.Sprintf("Put %s (%d bytes) into %s in %s.", f.Name, f.Size, actedOn(a.Ref), t.String())
		})
}

func (d dispatch) fillForm(ctx context.Context, a protocol.FillFormArgs) (protocol.CallToolResult, error) {
	fields := make([]protocol.FormFieldValue, len(a.Fields))
	names := make([]string, len(a.Fields))
	for i, f := range a.Fields {
		fields[i] = protocol.FormFieldValue{Ref: f.Ref, Element: f.Element, Value: f.Value}
		names[i] = actedOn(f.Ref)
	}
	return d.act(ctx, a.Target, protocol.MsgFillForm,
		func(t Target) any { return protocol.FillFormRequest{Fields: fields, TabID: t.TabID} },
		func(t Target) string {
			return fmt.Sprintf("Filled %d field(s) in %s: %s.", len(fields), t.String(), strings.Join(limitList(names, 20), ", "))
		})
}

// echoValues quotes the values the AI chose, at most 20, each clipped.
func echoValues(vals []string) string {
	q := make([]string, 0, min(len(vals), 20))
	for i, v := range vals {
		if i == 20 {
			break
		}
		q = append(q, fmt.Sprintf("%q", clip(v, maxEchoElement)))
	}
	out := strings.Join(q, ", ")
	if len(vals) > 20 {
		out += fmt.Sprintf(" and %d more", len(vals)-20)
	}
	return out
}
