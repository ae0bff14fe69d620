package tools

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode"

	"github.com/monkbrowse/monkbrowse/protocol"
)

// browser_run (issue 42): several steps in one call, each target found the
// way a person sees it. The orchestration lives here, in the server, over
// the wire messages every single tool already uses (snapshot, click, type,
// …): each step is one request the extension logs in the activity log and
// checks against the share gate like any other; its target is resolved in
// the snapshot that followed the previous step (the ref when it is still
// there; else role and name, ordinal, nearby text, frame; else a looser
// match that the answer reports). The whole run takes one turn of the tab,
// so nothing else acts in it between steps. Cancel and the person's Stop end
// it between steps (the turn's context). The answer is the steps done and
// one diff: the end page against the app's last snapshot of the tab.

// maxRunSteps bounds one run.
const maxRunSteps = 100

// maxLineTokens bounds one quoted snapshot line.
const maxLineTokens = 150

// runFocusLines bounds the snapshot lines a failed step quotes.
const runFocusLines = 12

var paramRe = regexp.MustCompile(`\{\{\s*([^{}]+?)\s*\}\}`)

// runStep is a step with its value resolved from the parameters.
type runStep struct {
	protocol.Step
	value string
}

// stepLine is how the answer names a step: its action and target, never a
// value (a secret has none; the AI knows the others).
func stepLine(s protocol.Step) string {
	out := s.Action
	if s.Target != nil {
		out += " " + describeTarget(*s.Target)
	}
	if s.Action == protocol.StepNavigate || s.Action == protocol.StepPress || s.Action == protocol.StepWaitFor {
		if s.Param == "" && !s.Secret && s.Value != "" {
			out += " " + fmt.Sprintf("%q", clip(s.Value, 80))
		}
	}
	if s.Param != "" {
		out += " ← " + s.Param
	}
	if s.Secret {
		out += " (a secret: the person enters it)"
	}
	return out
}

func describeTarget(t protocol.StepTarget) string {
	var parts []string
	if t.Role != "" {
		parts = append(parts, t.Role)
	}
	if t.Name != "" {
		parts = append(parts, fmt.Sprintf("%q", clip(t.Name, maxEchoElement)))
	}
	if t.Nth > 0 {
		parts = append(parts, fmt.Sprintf("(#%d)", t.Nth+1))
	}
	if t.Near != "" {
		parts = append(parts, fmt.Sprintf("near %q", clip(t.Near, 60)))
	}
	if t.Frame != "" {
		parts = append(parts, "in frame "+clip(t.Frame, 100))
	}
	if len(parts) == 0 && t.Ref != "" {
		parts = append(parts, t.Ref)
	}
	return strings.Join(parts, " ")
}

// prepareRun checks the steps and fills in their values before anything
// runs: a missing parameter, a step without its target or value, is an
// error that names it.
func prepareRun(steps []protocol.Step, params map[string]string, declared []protocol.RecordingParam) ([]runStep, error) {
	if len(steps) == 0 {
		return nil, errors.New("browser_run has no steps to run.")
	}
	if len(steps) > maxRunSteps {
		return nil, fmt.Errorf("browser_run runs at most %d steps in one call; this has %d. Split them into several calls.", maxRunSteps, len(steps))
	}
	used := map[string]bool{}
	missing := map[string]bool{}
	var missingOrder []string
	need := func(name string) (string, bool) {
		used[name] = true
		v, ok := params[name]
		if !ok && !missing[name] {
			missing[name] = true
			missingOrder = append(missingOrder, name)
		}
		return v, ok
	}
	var problems []string
	out := make([]runStep, len(steps))
	for i, s := range steps {
		rs := runStep{Step: s}
		n := i + 1
		if s.Secret {
			// The person types it: no value is needed, none is sent.
			if s.Action != protocol.StepType {
				problems = append(problems, fmt.Sprintf("step %d is marked secret but is a %s (only a type step can be)", n, s.Action))
			}
		} else if s.Param != "" {
			rs.value, _ = need(s.Param)
		} else {
			rs.value = paramRe.ReplaceAllStringFunc(s.Value, func(m string) string {
				v, _ := need(paramRe.FindStringSubmatch(m)[1])
				return v
			})
		}
		hasTarget := s.Target != nil && (s.Target.Ref != "" || s.Target.Role != "" || s.Target.Name != "")
		switch s.Action {
		case protocol.StepClick, protocol.StepCheck, protocol.StepUncheck, protocol.StepType, protocol.StepSelect, protocol.StepDrag:
			if !hasTarget {
				problems = append(problems, fmt.Sprintf("step %d (%s) needs a target: its role and name as the snapshot shows them, or a ref", n, s.Action))
			}
		}
		switch s.Action {
		case protocol.StepSelect, protocol.StepPress, protocol.StepNavigate, protocol.StepWaitFor:
			if s.Param == "" && s.Value == "" {
				problems = append(problems, fmt.Sprintf("step %d (%s) needs a value", n, s.Action))
			}
		case protocol.StepDrag:
			if s.To == nil || (s.To.Ref == "" && s.To.Role == "" && s.To.Name == "") {
				problems = append(problems, fmt.Sprintf("step %d (drag) needs `to`: where it drops", n))
			}
		}
		out[i] = rs
	}
	if len(missingOrder) > 0 {
		var known []string
		for _, p := range declared {
			if p.Secret {
				continue
			}
			if p.Example != "" {
				known = append(known, fmt.Sprintf("%s (recorded as %q)", p.Name, clip(p.Example, 60)))
			} else {
				known = append(known, p.Name)
			}
		}
		msg := fmt.Sprintf("browser_run needs a value for %s in `params`; nothing was run.", quoteNames(missingOrder))
		if len(known) > 0 {
			msg += " The recording's parameters are: " + strings.Join(known, ", ") + "."
		}
		problems = append([]string{msg}, problems...)
	}
	for name := range params {
		if !used[name] {
			problems = append(problems, fmt.Sprintf("no step uses the parameter %q (check its spelling)", clip(name, 60)))
		}
	}
	if len(problems) > 0 {
		return nil, errors.New(strings.Join(problems, "; ") + ". Fix the call and run it again.")
	}
	return out, nil
}

func quoteNames(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", clip(n, 60))
	}
	return strings.Join(q, ", ")
}

// ---- resolving a target in a snapshot ------------------------------------

// resolved is where a target was found: its ref and line, and how, when it
// was not an exact match (the answer reports it).
type resolved struct {
	ref    string
	line   string
	healed string
}

// notFound is a target the snapshot does not hold (or holds ambiguously):
// what was looked for and the lines found instead.
type notFound struct {
	why   string
	lines []string
}

func (e *notFound) Error() string { return e.why }

var wordRe = regexp.MustCompile(`[\p{L}\p{N}]+`)

func squash(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			return unicode.ToLower(r)
		}
		return -1
	}, s)
}

// roleFamilies are roles a redesign swaps for one another.
var roleFamilies = [][]string{
	{"button", "link", "menuitem", "tab"},
	{"textbox", "searchbox", "combobox", "spinbutton"},
	{"checkbox", "switch", "menuitemcheckbox"},
	{"radio", "menuitemradio"},
}

func sameFamily(a, b string) bool {
	for _, f := range roleFamilies {
		ina, inb := false, false
		for _, r := range f {
			ina = ina || r == a
			inb = inb || r == b
		}
		if ina && inb {
			return true
		}
	}
	return false
}

type snapElem struct {
	i          int
	role, name string
	ref        string
}

func elements(lines []snapLine) []snapElem {
	var out []snapElem
	for i, l := range lines {
		if l.ref == "" {
			continue
		}
		role, name, _ := lineParts(l.text)
		out = append(out, snapElem{i: i, role: role, name: name, ref: l.ref})
	}
	return out
}

// underFrame reports whether line i sits inside an iframe's stitched document.
func underFrame(lines []snapLine, i int) bool {
	if strings.HasPrefix(lines[i].ref, "f") {
		return true
	}
	for p := lines[i].parent; p >= 0; p = lines[p].parent {
		if lineRole(lines[p].text) == "iframe" {
			return true
		}
	}
	return false
}

// nearness is how close text near is to line i: the depth of the nearest
// ancestor (itself included) whose lines hold it, -1 when none does.
func nearness(lines []snapLine, i int, near string) int {
	near = strings.ToLower(near)
	depth := 0
	for a := i; a >= 0; a = lines[a].parent {
		end := len(lines)
		for j := a + 1; j < len(lines); j++ {
			if lines[j].indent <= lines[a].indent {
				end = j
				break
			}
		}
		for j := a; j < end; j++ {
			if strings.Contains(strings.ToLower(lines[j].text), near) {
				return 100 - depth
			}
		}
		depth++
	}
	// Text before the element (a label, a heading above it) counts too, less.
	for j := i - 1; j >= 0 && j >= i-6; j-- {
		if strings.Contains(strings.ToLower(lines[j].text), near) {
			return 10 - (i - j)
		}
	}
	return -1
}

// pick applies nth and near to exact candidates.
func pick(lines []snapLine, cands []snapElem, t protocol.StepTarget) (snapElem, string, bool) {
	if t.Frame != "" {
		var in []snapElem
		for _, c := range cands {
			if underFrame(lines, c.i) {
				in = append(in, c)
			}
		}
		if len(in) > 0 {
			cands = in
		}
	}
	if t.Near != "" && len(cands) > 1 {
		best, bestScore, tie := snapElem{}, -1, false
		for _, c := range cands {
			s := nearness(lines, c.i, t.Near)
			switch {
			case s > bestScore:
				best, bestScore, tie = c, s, false
			case s == bestScore:
				tie = true
			}
		}
		if bestScore >= 0 && !tie {
			return best, "", true
		}
	}
	if t.Nth < len(cands) {
		return cands[t.Nth], "", true
	}
	if len(cands) > 0 {
		return snapElem{}, fmt.Sprintf("there are only %d such element(s), not a #%d", len(cands), t.Nth+1), false
	}
	return snapElem{}, "", false
}

// resolveTarget finds t in snapshot (the page as it is now).
func resolveTarget(snapshot string, t protocol.StepTarget) (resolved, error) {
	lines := parseSnapshot(snapshot)
	els := elements(lines)
	found := func(e snapElem, healed string) (resolved, error) {
		return resolved{ref: e.ref, line: lines[e.i].text, healed: healed}, nil
	}
	staleRef := ""
	if t.Ref != "" {
		for _, e := range els {
			if e.ref == t.Ref && (t.Role == "" || e.role == t.Role) && (t.Name == "" || e.name == t.Name) {
				return found(e, "")
			}
		}
		if t.Role == "" && t.Name == "" {
			return resolved{}, &notFound{why: fmt.Sprintf("ref %s is not on the page any more, and the step gives no role or name to look for instead", t.Ref)}
		}
		staleRef = fmt.Sprintf("ref %s was stale; ", t.Ref)
	}
	var exact []snapElem
	for _, e := range els {
		if (t.Role == "" || e.role == t.Role) && (t.Name == "" || e.name == t.Name) {
			exact = append(exact, e)
		}
	}
	if e, why, ok := pick(lines, exact, t); ok {
		if staleRef != "" {
			return found(e, staleRef+"found by role and name")
		}
		return found(e, "")
	} else if why != "" {
		return resolved{}, &notFound{why: why, lines: quoteLines(lines, exact)}
	}
	// Looser matches, in order; the first level with exactly one element
	// (after nth) wins, and the answer says which.
	want := squash(t.Name)
	type level struct {
		how   string
		match func(e snapElem) bool
	}
	levels := []level{
		{"the name differs only in case, spaces or punctuation", func(e snapElem) bool {
			return (t.Role == "" || e.role == t.Role) && want != "" && squash(e.name) == want
		}},
		{"same name, similar role", func(e snapElem) bool {
			return t.Role != "" && sameFamily(e.role, t.Role) && want != "" && squash(e.name) == want
		}},
		{"the name contains the one recorded, or the other way round", func(e snapElem) bool {
			n := squash(e.name)
			return (t.Role == "" || e.role == t.Role || sameFamily(e.role, t.Role)) && want != "" && n != "" &&
				(strings.Contains(n, want) || strings.Contains(want, n))
		}},
		{"the name shares words with the one recorded", func(e snapElem) bool {
			if t.Role == "" || e.role != t.Role || t.Name == "" {
				return false
			}
			for _, w := range wordRe.FindAllString(strings.ToLower(t.Name), -1) {
				if len([]rune(w)) >= 3 && strings.Contains(strings.ToLower(e.name), w) {
					return true
				}
			}
			return false
		}},
	}
	for _, lv := range levels {
		var c []snapElem
		for _, e := range els {
			if lv.match(e) {
				c = append(c, e)
			}
		}
		if len(c) == 0 {
			continue
		}
		e, _, ok := pick(lines, c, t)
		if ok && (len(c) == 1 || t.Nth > 0 || t.Near != "") {
			return found(e, fmt.Sprintf("%sno exact match; used %s %q (%s)", staleRef, e.role, clip(e.name, maxEchoElement), lv.how))
		}
		return resolved{}, &notFound{why: fmt.Sprintf("no exact match, and %d elements match loosely (%s), too many to choose from", len(c), lv.how), lines: quoteLines(lines, c)}
	}
	// Nothing: quote the elements of the same role (or family) instead.
	var same []snapElem
	for _, e := range els {
		if t.Role != "" && (e.role == t.Role || sameFamily(e.role, t.Role)) {
			same = append(same, e)
		}
	}
	why := "no element on the page has this role and name"
	if len(same) > 0 {
		why += "; the elements of that kind are below"
	}
	return resolved{}, &notFound{why: why, lines: quoteLines(lines, same)}
}

func quoteLines(lines []snapLine, es []snapElem) []string {
	var out []string
	for i, e := range es {
		if i == runFocusLines {
			out = append(out, fmt.Sprintf("# and %d more", len(es)-runFocusLines))
			break
		}
		out = append(out, "- "+clipTokens(strings.TrimPrefix(lines[e.i].text, "- "), maxLineTokens))
	}
	return out
}

// lineOf is the snapshot line of ref, "" when it is gone.
func lineOf(snapshot, ref string) string {
	for _, l := range parseSnapshot(snapshot) {
		if l.ref == ref {
			return l.text
		}
	}
	return ""
}

// ---- running ---------------------------------------------------------------

// runStopped is why a run stopped before its end.
type runStopped struct {
	step  int // 0-based
	why   string
	lines []string
	// halted: ended from outside (cancel, the person's Stop, the budget),
	// not by the page; why is monkbrowse's own sentence then.
	halted bool
}

func (d dispatch) run(ctx context.Context, a protocol.RunArgs) (protocol.CallToolResult, error) {
	if (len(a.Steps) == 0) == (a.Recording == "") {
		return protocol.CallToolResult{}, errors.New("browser_run takes either `steps` (a list of steps) or `recording` (the name of one the person recorded; browser_recordings lists them), not both and not neither. Call it again with one of them.")
	}
	var done []string
	var stop *runStopped
	var out string
	var failed bool
	err := d.withTab(ctx, a.Profile, a.Tab, func(ctx context.Context, t Target, s Session) error {
		steps := a.Steps
		var declared []protocol.RecordingParam
		site := ""
		if a.Recording != "" {
			var res protocol.RecordingsResult
			if err := s.Request(ctx, protocol.MsgRecordings, protocol.RecordingsRequest{TabID: t.TabID, Name: a.Recording}, &res); err != nil {
				return err
			}
			if len(res.Recordings) == 0 {
				return fmt.Errorf("There is no recording named %q in this browser profile. Call browser_recordings to list the person's recordings.", clip(a.Recording, 100))
			}
			steps, declared, site = res.Recordings[0].Steps, res.Recordings[0].Params, res.Recordings[0].Site
		}
		prepared, err := prepareRun(steps, a.Params, declared)
		if err != nil {
			return err
		}
		var snap protocol.SnapshotResult
		if err := s.Request(ctx, protocol.MsgSnapshot, protocol.TabRequest{TabID: t.TabID}, &snap); err != nil {
			return err
		}
		cleanSnapshot(&snap)
		startURL := snap.URL
		var dialogs []protocol.Dialog
		for i, st := range prepared {
			if err := ctx.Err(); err != nil {
				stop = &runStopped{step: i, why: stoppedWhy(ctx), halted: true}
				break
			}
			res, r, serr := d.runStep(ctx, t, s, snap, st)
			if serr != nil {
				var nf *notFound
				if errors.As(serr, &nf) {
					stop = &runStopped{step: i, why: nf.why, lines: nf.lines}
				} else if ctx.Err() != nil {
					stop = &runStopped{step: i, why: stoppedWhy(ctx), halted: true}
				} else {
					why, _ := failureParts(serr)
					stop = &runStopped{step: i, why: "it failed" + strings.TrimSuffix(why, ".")}
				}
				break
			}
			dialogs = append(dialogs, res.Dialogs...)
			line := fmt.Sprintf("%d. %s", i+1, stepLine(st.Step))
			if r.healed != "" {
				line += "\n   healed: " + r.healed
			}
			done = append(done, line)
			// The page after the step: the next step's targets are found in it.
			var next protocol.SnapshotResult
			if ctx.Err() == nil {
				if err := s.Request(ctx, protocol.MsgSnapshot, protocol.TabRequest{TabID: t.TabID}, &next); err == nil {
					cleanSnapshot(&next)
					if why := checkEffect(st, r, res, snap, next); why != "" {
						stop = &runStopped{step: i, why: why, lines: nonEmpty(lineOf(next.Snapshot, r.ref))}
						done = done[:len(done)-1]
						snap = next
						break
					}
					snap = next
				} else if ctx.Err() == nil {
					stop = &runStopped{step: i + 1, why: "the snapshot after the previous step failed" + strings.TrimSuffix(firstOf(failureParts(err)), ".")}
					break
				}
			}
		}
		if stop != nil && stop.step >= len(prepared) {
			stop = nil
		}
		// monkbrowse's own words first; the steps (their names come from
		// pages) and the page's lines after the page-content note.
		head := fmt.Sprintf("Ran %d of %d steps in %s.", len(done), len(prepared), t.String())
		var lead []string
		if len(done) > 0 {
			lead = append(lead, "Steps done:\n"+strings.Join(done, "\n"))
		}
		if stop != nil && stop.halted {
			failed = true
			head = fmt.Sprintf("Ran %d of %d steps in %s; the run ended at step %d (%s), which may be half done: %s.", len(done), len(prepared), t.String(), stop.step+1, prepared[stop.step].Action, strings.TrimSuffix(stop.why, "."))
		} else if stop != nil {
			failed = true
			head = fmt.Sprintf("Ran %d of %d steps in %s, then stopped at step %d (%s).", len(done), len(prepared), t.String(), stop.step+1, prepared[stop.step].Action)
			if stop.step+1 < len(prepared) {
				head += fmt.Sprintf(" Steps %d–%d were not run.", stop.step+1, len(prepared))
			}
			head += " Fix that step (browser_snapshot shows the page) and run it and the rest again."
			lead = append(lead, fmt.Sprintf("Stopped at step %d, %s: %s.", stop.step+1, stepLine(prepared[stop.step].Step), strings.TrimSuffix(stop.why, ".")))
			if len(stop.lines) > 0 {
				lead = append(lead, "What the page has instead:\n"+fenced("yaml", pageBlock(strings.Join(stop.lines, "\n"))))
			}
			if site != "" && !strings.HasPrefix(startURL, site) {
				lead = append(lead, fmt.Sprintf("The recording was made on %s; the tab was on %s when the run began.", pageLine(clip(site, 200)), pageLine(clip(startURL, 200))))
			}
		}
		if ctx.Err() != nil {
			out = withPage(head, strings.Join(lead, "\n"))
			return nil
		}
		lead = append(lead, formatDialogs(append(dialogs, snap.Dialogs...)))
		budget := DefaultMaxTokens - EstimateTokens(head) - 1
		out = head + "\n\n" + d.formatAfterAction(t, snap, joinPage(lead...), budget, "")
		return nil
	})
	if err != nil {
		if len(done) == 0 {
			return protocol.CallToolResult{}, err
		}
		return protocol.ErrorResult(withPage(fmt.Sprintf("browser_run ran %d step(s), then failed: %s", len(done), d.explain(ctx, "browser_run", err)), "Steps done:\n"+strings.Join(done, "\n"))), nil
	}
	if failed {
		return protocol.ErrorResult(out), nil
	}
	return TextResult(out), nil
}

func firstOf(a, _ string) string { return a }

func nonEmpty(s string) []string {
	if s == "" {
		return nil
	}
	return []string{"- " + clipTokens(strings.TrimPrefix(s, "- "), maxLineTokens)}
}

func stoppedWhy(ctx context.Context) string {
	if ae := protocol.Aborted(ctx); ae != nil && ae.Reason != "" {
		return ae.Reason
	}
	if errors.Is(context.Cause(ctx), ErrCallBudget) {
		return fmt.Sprintf("the call's %s budget ran out", CallBudget)
	}
	return "the call was cancelled"
}

// checkEffect says why a step that ran had no effect, "" when it did.
func checkEffect(st runStep, r resolved, res protocol.TabResult, before, after protocol.SnapshotResult) string {
	switch st.Action {
	case protocol.StepCheck, protocol.StepUncheck:
		line := lineOf(after.Snapshot, r.ref)
		if line == "" {
			return ""
		}
		on := strings.Contains(line, "[checked]")
		if on != (st.Action == protocol.StepCheck) {
			return "the click did not change its checked state"
		}
		return ""
	case protocol.StepWaitFor, protocol.StepScroll, protocol.StepNavigate:
		return ""
	}
	if strings.TrimSpace(res.Note) != "" && before.Snapshot == after.Snapshot && before.URL == after.URL {
		return "it had no effect: the page showed no change after it"
	}
	return ""
}

// runStep resolves and does one step.
func (d dispatch) runStep(ctx context.Context, t Target, s Session, snap protocol.SnapshotResult, st runStep) (protocol.TabResult, resolved, error) {
	var res protocol.TabResult
	var r resolved
	if st.Target != nil && st.Action != protocol.StepNavigate && st.Action != protocol.StepWaitFor {
		var err error
		if r, err = resolveTarget(snap.Snapshot, *st.Target); err != nil {
			return res, r, err
		}
	}
	req := func(typ string, payload any) error { return s.Request(ctx, typ, payload, &res) }
	switch st.Action {
	case protocol.StepClick:
		return res, r, req(protocol.MsgClick, protocol.ElementRequest{Ref: r.ref, TabID: t.TabID})
	case protocol.StepCheck, protocol.StepUncheck:
		on := strings.Contains(r.line, "[checked]")
		if on == (st.Action == protocol.StepCheck) {
			r.healed = strings.TrimSpace(r.healed + " already " + map[bool]string{true: "checked", false: "unchecked"}[on] + ": left as it was")
			return res, r, nil
		}
		return res, r, req(protocol.MsgClick, protocol.ElementRequest{Ref: r.ref, TabID: t.TabID})
	case protocol.StepType:
		if st.Secret {
			if _, _, v := lineParts(r.line); v != "" {
				// The person answered it beforehand (or the browser filled
				// it in): not asked again, never read.
				r.healed = strings.TrimSpace(r.healed + " already filled in before the run: the person was not asked again")
				return res, r, nil
			}
			return res, r, d.runSecret(ctx, t, s, st, r)
		}
		return res, r, req(protocol.MsgType, protocol.TypeRequest{Ref: r.ref, Text: st.value, TabID: t.TabID})
	case protocol.StepSelect:
		return res, r, req(protocol.MsgSelectOption, protocol.SelectOptionRequest{Ref: r.ref, Values: []string{st.value}, TabID: t.TabID})
	case protocol.StepPress:
		if r.ref != "" {
			// Focus the element first: a key goes to the focused element.
			if err := req(protocol.MsgClick, protocol.ElementRequest{Ref: r.ref, TabID: t.TabID}); err != nil {
				return res, r, err
			}
		}
		return res, r, req(protocol.MsgPressKey, protocol.PressKeyRequest{Key: st.value, TabID: t.TabID})
	case protocol.StepNavigate:
		url := normalizeURL(st.value)
		if why := d.fileURLRefusal(url); why != "" {
			return res, r, errors.New(why)
		}
		return res, r, req(protocol.MsgNavigate, protocol.NavigateRequest{URL: url, TabID: t.TabID})
	case protocol.StepScroll:
		return res, r, req(protocol.MsgScroll, protocol.ScrollRequest{Direction: st.Direction, Amount: st.Amount, Ref: r.ref, TabID: t.TabID})
	case protocol.StepDrag:
		to, err := resolveTarget(snap.Snapshot, *st.To)
		if err != nil {
			return res, r, err
		}
		return res, r, req(protocol.MsgDrag, protocol.DragRequest{StartRef: r.ref, EndRef: to.ref, TabID: t.TabID})
	case protocol.StepWaitFor:
		return res, r, d.runWaitFor(ctx, t, s, st.value)
	}
	return res, r, fmt.Errorf("unknown action %q", st.Action)
}

// runWaitFor polls the page's text until it holds text, bounded.
func (d dispatch) runWaitFor(ctx context.Context, t Target, s Session, text string) error {
	deadline := time.Now().Add(DefaultWaitForText)
	for {
		var res protocol.TextResult
		if err := s.Request(ctx, protocol.MsgGetText, protocol.GetTextRequest{TabID: t.TabID}, &res); err != nil {
			return err
		}
		if strings.Contains(res.Text, text) {
			return nil
		}
		left := time.Until(deadline)
		if left <= 0 {
			return &notFound{why: fmt.Sprintf("the text %q did not appear within %s", clip(text, maxEcho), DefaultWaitForText)}
		}
		tm := time.NewTimer(min(d.opts.WaitPoll, left))
		select {
		case <-tm.C:
		case <-ctx.Done():
			tm.Stop()
			return ctx.Err()
		}
	}
}

// runSecret hands a secret step to the person (browser_ask_user's banner)
// and waits for Done within the call's budget.
func (d dispatch) runSecret(ctx context.Context, t Target, s Session, st runStep, r resolved) error {
	what := "the secret"
	if st.Param != "" {
		what = "your " + st.Param
	}
	_, name, _ := lineParts(r.line)
	msg := fmt.Sprintf("Please enter %s in the field %q, then press Done. The AI is running a recorded flow and will go on from there.", clip(what, 60), clip(name, 100))
	wait := d.opts.AskSlice
	if dl, ok := ctx.Deadline(); ok {
		wait = min(wait, time.Until(dl)-askReserve)
	}
	var res protocol.AskResult
	if err := s.Request(ctx, protocol.MsgAskUser, protocol.AskUserRequest{TabID: t.TabID, Message: msg, WaitMs: int(max(wait, 0) / time.Millisecond)}, &res); err != nil {
		return err
	}
	switch res.State {
	case protocol.AskDone:
		return nil
	case protocol.AskDeclined:
		return &notFound{why: "the person pressed Decline instead of entering it; ask them in the chat what to do"}
	case protocol.AskPending:
		e := askEntry{id: res.AskID, slug: t.Slug, slot: t.Slot, tabID: t.TabID, target: t.String(), created: time.Now()}
		if res.Created > 0 {
			e.created = time.UnixMilli(res.Created)
		}
		d.asks.put(e)
		return &notFound{why: fmt.Sprintf("the person has not entered it yet; call browser_ask_user with waitId %q to keep waiting, then run the remaining steps", res.AskID)}
	}
	return &notFound{why: "the request to the person ended without an answer"}
}
