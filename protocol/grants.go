package protocol

// AppGrants is what the AI app that made a tool call allows, decided in the
// monkbrowse process that app launched (its flags and its MCP client's
// roots), never in the owner on its behalf. It travels in the call
// (CallTool.Grants), across the control port too; a call without grants (an
// older forwarder) is allowed nothing: no file: URLs and no upload.
type AppGrants struct {
	// AllowFileURLs: the app's process was started with --allow-file-urls,
	// so browser_navigate and browser_new_tab may open file: URLs.
	AllowFileURLs bool `json:"allowFileUrls,omitempty"`
	// Upload is the file browser_upload_file asked for, already checked
	// against the app's upload roots and read by the app's own process.
	Upload *UploadedFile `json:"upload,omitempty"`
}

// UploadedFile is a file read for browser_upload_file.
type UploadedFile struct {
	// Path is the path the AI gave (the call's `path` argument).
	Path string `json:"path"`
	// Name is the file name the page sees.
	Name string `json:"name"`
	// Size is the length of the file in bytes.
	Size int64 `json:"size"`
	// Data is the file's content, base64 (standard encoding).
	Data string `json:"data"`
}
