package install

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

func (o *Options) statePath() string {
	if o.State != "" {
		return o.State
	}
	return filepath.Join(o.Env.Home, ".monkbrowse", "installed.json")
}

// record is one thing install added.
type record struct {
	Client  string `json:"client"`
	Via     string `json:"via"` // "file" or "cli"
	File    string `json:"file,omitempty"`
	Command string `json:"command"`
	Existed bool   `json:"existed"` // the file existed before
	Before  string `json:"before,omitempty"`
	After   string `json:"after,omitempty"`
	Added   string `json:"added,omitempty"` // the text inserted
	At      string `json:"at"`
}

type state struct {
	Records []record `json:"records"`
}

func loadState(p string) (*state, error) {
	b, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return &state{}, nil
	}
	if err != nil {
		return nil, err
	}
	var s state
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s is damaged (%v): move it away to start over", p, err)
	}
	return &s, nil
}

func (s *state) save(p string) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	return writeFileAtomic(p, append(b, '\n'), 0o600)
}
