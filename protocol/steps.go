package protocol

// Steps: one language for three uses (issue 42). The person's recordings are
// lists of steps, the AI can write steps for browser_run, and an export turns
// steps into a Playwright test. A step names its target the way a person sees
// it (role and accessible name, the frame, an ordinal when names repeat, nearby
// text), so it outlives the refs of the snapshot it was recorded against.

// Step actions.
const (
	StepClick    = "click"
	StepType     = "type"
	StepSelect   = "select"
	StepCheck    = "check"
	StepUncheck  = "uncheck"
	StepPress    = "press"
	StepNavigate = "navigate"
	StepScroll   = "scroll"
	StepDrag     = "drag"
	StepWaitFor  = "wait_for"
)

// StepActions lists every action a Step may carry, in the order tools document them.
var StepActions = []string{StepClick, StepType, StepSelect, StepCheck, StepUncheck, StepPress, StepNavigate, StepScroll, StepDrag, StepWaitFor}

// StepTarget is an element described the way a person sees it.
type StepTarget struct {
	// Ref is a snapshot ref; used first when it is still valid (the AI's steps).
	Ref string `json:"ref,omitempty" jsonschema_description:"Snapshot ref, if you have one."`
	// Role is the element's ARIA role as monkbrowse's snapshot shows it.
	Role string `json:"role,omitempty" jsonschema_description:"Role as in the snapshot."`
	// Name is the accessible name.
	Name string `json:"name,omitempty" jsonschema_description:"Name as in the snapshot."`
	// Nth picks among elements with the same role and name, 0-based in document order.
	Nth int `json:"nth,omitempty" jsonschema:"minimum=0" jsonschema_description:"Which one of the same role and name, from 0."`
	// Near is text close to the element (a heading, a row's text) that tells repeated names apart.
	Near string `json:"near,omitempty" jsonschema_description:"Text near it, to tell repeats apart."`
	// Frame is the origin and path of the frame's document ("" for the top document).
	Frame string `json:"frame,omitempty" jsonschema_description:"Its frame's address, if in one."`
}

// Step is one action of a flow.
type Step struct {
	Action string      `json:"action" jsonschema:"enum=click,enum=type,enum=select,enum=check,enum=uncheck,enum=press,enum=navigate,enum=scroll,enum=drag,enum=wait_for"`
	Target *StepTarget `json:"target,omitempty"`
	// Value is the text typed, the option selected, the key pressed, the
	// address navigated to or the text waited for. "{{name}}" is replaced by
	// the parameter name; a step whose Param is set takes that parameter's value.
	Value string `json:"value,omitempty" jsonschema_description:"Text, option, key, URL or text to wait for; {{p}} is param p."`
	// Param names the parameter that supplies Value.
	Param string `json:"param,omitempty" jsonschema_description:"The param giving the value."`
	// Secret marks a step where the person enters a secret: never recorded,
	// never sent; a run hands it off to the person.
	Secret bool `json:"secret,omitempty" jsonschema_description:"The person types it (a password)."`
	// To is a drag's drop target.
	To *StepTarget `json:"to,omitempty"`
	// Direction and Amount describe a scroll ("down", "up", "left", "right"; pixels).
	Direction string `json:"direction,omitempty" jsonschema:"enum=up,enum=down,enum=left,enum=right"`
	Amount    int    `json:"amount,omitempty" jsonschema:"minimum=0"`
}

// RecordingParam is a named value of a recording.
type RecordingParam struct {
	Name string `json:"name"`
	// Example is the value the person typed while recording (never for a secret).
	Example string `json:"example,omitempty"`
	Secret  bool   `json:"secret,omitempty"`
}

// Recording is a flow the person showed once, kept in the extension's profile.
type Recording struct {
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	// Site is the origin where the recording started.
	Site    string           `json:"site"`
	Created string           `json:"created"` // RFC 3339
	Params  []RecordingParam `json:"params,omitempty"`
	Steps   []Step           `json:"steps"`
}

// MsgRecordings asks the extension for the person's recordings (issue 42):
// the list, one recording, or its Playwright export. Like every request it
// names a tab, which must be shared: recordings leave the profile only to an
// AI app the person shares a tab with.
const MsgRecordings = "recordings"

// Recordings formats (RecordingsRequest.Format).
const (
	RecordingsSteps      = "steps"
	RecordingsPlaywright = "playwright"
)

// RecordingsRequest asks for the recordings: all of them without Name; the
// one named Name, with Format "playwright" as a Playwright test.
type RecordingsRequest struct {
	TabID  int    `json:"tabId,omitempty"`
	Name   string `json:"name,omitempty"`
	Format string `json:"format,omitempty"`
}

// RecordingsResult answers RecordingsRequest: Recordings holds every
// recording (without Name) or the one asked for (none when it does not
// exist); Export is the Playwright test when it was asked for.
type RecordingsResult struct {
	TabID      int         `json:"tabId"`
	Recordings []Recording `json:"recordings"`
	Export     string      `json:"export,omitempty"`
}
