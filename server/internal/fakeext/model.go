package fakeext

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/monkbrowse/monkbrowse/messaging"
	"github.com/monkbrowse/monkbrowse/protocol"
)

// apply runs one wire message against the model. notify reports a change of
// the shared tabs, which the fake then announces with tabs_changed.
func (e *Ext) apply(typ string, payload json.RawMessage) (res any, notify bool, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()

	switch typ {
	case protocol.MsgListTabs:
		return protocol.ListTabsResult{Tabs: e.sharedLocked()}, false, nil
	case protocol.MsgNewTab:
		var req protocol.NewTabRequest
		if err := json.Unmarshal(payload, &req); err != nil {
			return nil, false, err
		}
		url := req.URL
		if url == "" {
			url = "about:blank"
		}
		win := 1
		for _, t := range e.tabs {
			if t.Active {
				win = t.WindowID
			}
		}
		for _, t := range e.tabs {
			if t.WindowID == win {
				t.Active = false
			}
		}
		t := &Tab{ID: e.nextTab, WindowID: win, Shared: true, Slot: e.freeSlotLocked(), Active: true, URL: url}
		e.nextTab++
		e.initTab(t)
		e.tabs = append(e.tabs, t)
		return protocol.NewTabResult{TabID: t.ID, Slot: t.Slot}, true, nil
	}

	var tid struct {
		TabID int `json:"tabId"`
	}
	if err := json.Unmarshal(payload, &tid); err != nil {
		return nil, false, fmt.Errorf("malformed payload: %v", err)
	}
	t, err := e.targetLocked(tid.TabID)
	if err != nil {
		return nil, false, err
	}
	p := t.Page
	ok := protocol.TabResult{TabID: t.ID}
	decode := func(v any) error { return json.Unmarshal(payload, v) }
	elem := func(ref string) (*Element, error) {
		el, found := p.Element(ref)
		if !found {
			return nil, fmt.Errorf("ref %s is not on the page any more (the page changed); take a new browser_snapshot and use a ref from it", ref)
		}
		return el, nil
	}

	switch typ {
	case protocol.MsgNavigate:
		var req protocol.NavigateRequest
		if err := decode(&req); err != nil {
			return nil, false, err
		}
		t.History = append(t.History[:t.HistIdx+1], req.URL)
		t.HistIdx = len(t.History) - 1
		e.loadLocked(t, req.URL)
		return ok, true, nil
	case protocol.MsgGoBack, protocol.MsgGoForward:
		step := -1
		if typ == protocol.MsgGoForward {
			step = 1
		}
		i := t.HistIdx + step
		if i < 0 || i >= len(t.History) {
			return nil, false, fmt.Errorf("there is no page to go %s to in this tab's history", map[int]string{-1: "back", 1: "forward"}[step])
		}
		t.HistIdx = i
		e.loadLocked(t, t.History[i])
		return ok, true, nil
	case protocol.MsgReload:
		p.Reloads++
		return ok, false, nil
	case protocol.MsgClick:
		var req protocol.ElementRequest
		if err := decode(&req); err != nil {
			return nil, false, err
		}
		el, err := elem(req.Ref)
		if err != nil {
			return nil, false, err
		}
		if el.Disabled {
			return nil, false, fmt.Errorf("%s is disabled", req.Ref)
		}
		p.Clicks = append(p.Clicks, req.Ref)
		switch el.Role {
		case "checkbox":
			el.Checked = !el.Checked
		case "link":
			if el.Href != "" {
				t.History = append(t.History[:t.HistIdx+1], el.Href)
				t.HistIdx = len(t.History) - 1
				e.loadLocked(t, el.Href)
				return ok, true, nil
			}
		}
		return ok, false, nil
	case protocol.MsgHover:
		var req protocol.ElementRequest
		if err := decode(&req); err != nil {
			return nil, false, err
		}
		if _, err := elem(req.Ref); err != nil {
			return nil, false, err
		}
		p.Hovered = req.Ref
		return ok, false, nil
	case protocol.MsgType:
		var req protocol.TypeRequest
		if err := decode(&req); err != nil {
			return nil, false, err
		}
		el, err := elem(req.Ref)
		if err != nil {
			return nil, false, err
		}
		el.Value = req.Text
		if req.Submit {
			p.Keys = append(p.Keys, "Enter")
		}
		return ok, false, nil
	case protocol.MsgSelectOption:
		var req protocol.SelectOptionRequest
		if err := decode(&req); err != nil {
			return nil, false, err
		}
		el, err := elem(req.Ref)
		if err != nil {
			return nil, false, err
		}
		for _, v := range req.Values {
			if !slices.Contains(el.Options, v) {
				return nil, false, fmt.Errorf("option %q is not in %s (its options: %v)", v, req.Ref, el.Options)
			}
		}
		el.Selected = append([]string(nil), req.Values...)
		return ok, false, nil
	case protocol.MsgPressKey:
		var req protocol.PressKeyRequest
		if err := decode(&req); err != nil {
			return nil, false, err
		}
		p.Keys = append(p.Keys, req.Key)
		return ok, false, nil
	case protocol.MsgScroll:
		var req protocol.ScrollRequest
		if err := decode(&req); err != nil {
			return nil, false, err
		}
		if req.Ref != "" {
			if _, err := elem(req.Ref); err != nil {
				return nil, false, err
			}
			p.ScrollTo = req.Ref
			return ok, false, nil
		}
		amount := req.Amount
		if amount == 0 {
			amount = 600
		}
		switch req.Direction {
		case "", "down":
			p.ScrollY += amount
		case "up":
			p.ScrollY -= amount
		case "right":
			p.ScrollX += amount
		case "left":
			p.ScrollX -= amount
		}
		return ok, false, nil
	case protocol.MsgDrag:
		var req protocol.DragRequest
		if err := decode(&req); err != nil {
			return nil, false, err
		}
		for _, r := range []string{req.StartRef, req.EndRef} {
			if _, err := elem(r); err != nil {
				return nil, false, err
			}
		}
		p.Drags = append(p.Drags, [2]string{req.StartRef, req.EndRef})
		return ok, false, nil
	case protocol.MsgUploadFile:
		var req protocol.UploadFileRequest
		if err := decode(&req); err != nil {
			return nil, false, err
		}
		el, err := elem(req.Ref)
		if err != nil {
			return nil, false, err
		}
		data, err := base64.StdEncoding.DecodeString(req.Data)
		if err != nil {
			return nil, false, fmt.Errorf("upload data is not base64: %v", err)
		}
		el.Files = []File{{Name: req.Name, Data: data}}
		return ok, false, nil
	case protocol.MsgGetConsoleLogs:
		return protocol.ConsoleLogsResult{TabID: t.ID, Logs: append([]protocol.ConsoleEntry{}, p.Console...)}, false, nil
	case protocol.MsgScreenshot:
		return protocol.ScreenshotResult{TabID: t.ID, Data: ScreenshotPNG()}, false, nil
	case protocol.MsgSnapshot:
		return protocol.SnapshotResult{TabID: t.ID, URL: t.URL, Title: t.Title, Snapshot: p.Snapshot()}, false, nil
	case protocol.MsgGetText:
		var req protocol.GetTextRequest
		if err := decode(&req); err != nil {
			return nil, false, err
		}
		if req.Ref != "" {
			el, err := elem(req.Ref)
			if err != nil {
				return nil, false, err
			}
			return protocol.TextResult{TabID: t.ID, Text: el.visibleText()}, false, nil
		}
		return protocol.TextResult{TabID: t.ID, Text: p.VisibleText()}, false, nil
	case protocol.MsgEvaluate:
		var req protocol.EvaluateRequest
		if err := decode(&req); err != nil {
			return nil, false, err
		}
		var v any
		if e.opts.Evaluate != nil {
			v, err = e.opts.Evaluate(copyTab(t), req.Expression)
			if err != nil {
				return nil, false, err
			}
		} else {
			switch req.Expression {
			case "document.title":
				v = t.Title
			case "location.href":
				v = t.URL
			default:
				v = map[string]any{"expression": req.Expression}
			}
		}
		return protocol.EvaluateResult{TabID: t.ID, Result: v}, false, nil
	case protocol.MsgGetURL:
		return protocol.URLResult{TabID: t.ID, URL: t.URL}, false, nil
	case protocol.MsgGetTitle:
		return protocol.TitleResult{TabID: t.ID, Title: t.Title}, false, nil
	case protocol.MsgSwitchTab:
		for _, o := range e.tabs {
			if o.WindowID == t.WindowID {
				o.Active = false
			}
		}
		t.Active = true
		return protocol.SwitchTabResult{ActiveTabID: t.ID}, true, nil
	case protocol.MsgCloseTab:
		for i, o := range e.tabs {
			if o == t {
				e.tabs = append(e.tabs[:i:i], e.tabs[i+1:]...)
				break
			}
		}
		return ok, true, nil
	}
	return nil, false, fmt.Errorf("fakeext: no model for %q", typ)
}

// targetLocked finds the tab a request is for (0: the active tab) and
// refuses tabs that are not shared, as the real extension does, in its
// words (extension/lib/executor.ts: resolveTab, notSharedError): the
// server recognises these refusals by their text.
func (e *Ext) targetLocked(id int) (*Tab, error) {
	var t *Tab
	if id == 0 {
		for _, o := range e.tabs {
			if o.Active {
				t = o
				break
			}
		}
		if t == nil {
			return nil, fmt.Errorf("there is no active tab")
		}
		if !t.Shared {
			return nil, fmt.Errorf("no tabId was given and the active tab (%d) is not shared with the AI; pass the tab of a shared tab, or the user can share this one from the monkbrowse popup", t.ID)
		}
		return t, nil
	}
	// The real extension checks its shares before asking Chrome for the
	// tab, and drops the share of a closed tab.
	if t = e.tabLocked(id); t == nil || !t.Shared {
		return nil, messaging.WithCode(protocol.CodeNotShared, fmt.Errorf("tab %d is not shared with the AI; the user can share it from the monkbrowse popup", id))
	}
	return t, nil
}

func (e *Ext) loadLocked(t *Tab, url string) {
	t.URL = url
	t.Title = e.opts.TitleFor(url)
	p := e.opts.PageFor(url)
	t.Page = &p
}
