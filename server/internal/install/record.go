package install

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

func (o *Options) statePath() string {
	if o.State != "" {
		return o.State
	}
	return filepath.Join(o.Env.Home, ".monkbrowse", "installed.json")
}

// stateVersion is the record's format. 1 (unnumbered) kept the whole file
// before and after each change; 2 keeps only what undo needs.
const stateVersion = 2

// record is one thing install added: only what undo needs, never a copy
// of the file or of another entry.
type record struct {
	Client string `json:"client"`
	// Via is how it was added: "file" (an entry merged into File) or "cli"
	// (the client's own command). Other kinds of target (the pairing
	// issue's native-messaging host manifest, a Windows registry key) get
	// a Via of their own and their own where-field beside File; uninstall
	// refuses a kind it does not know and keeps its record.
	Via string `json:"via"`
	// File is the path the client reads (when it is a link, the link's
	// path: it is resolved again at uninstall).
	File string `json:"file,omitempty"`
	// Key is the Windows registry key (under HKCU) of a "registry"
	// record (HostClient): its default value names File.
	Key string `json:"key,omitempty"`
	// Command is the entry's command, or its URL for an HTTP entry.
	Command string `json:"command"`
	// HTTP: the entry is `serve --http`'s URL and token (install --http).
	HTTP bool `json:"http,omitempty"`
	// Created: install created the file; CreatedTable: it created the
	// servers object (JSON) the entry went into.
	Created      bool `json:"created,omitempty"`
	CreatedTable bool `json:"createdTable,omitempty"`
	// Added is the text inserted (monkbrowse's entry and nothing else) and
	// Offset where; they undo an untouched file byte for byte.
	Added  string `json:"added,omitempty"`
	Offset int    `json:"offset,omitempty"`
	// SHA256 is the hash of the file just after install: the same hash at
	// uninstall means nobody has changed it since.
	SHA256 string `json:"sha256,omitempty"`
	At     string `json:"at"`
}

type state struct {
	Version int      `json:"version"`
	Records []record `json:"records"`
}

// storedRecord reads both formats: the first one's copies of the file
// are read only to be dropped.
type storedRecord struct {
	record
	Existed *bool  `json:"existed,omitempty"`
	Before  string `json:"before,omitempty"`
	After   string `json:"after,omitempty"`
}

func hashOf(b []byte) string {
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:])
}

// loadState reads the record; migrated: it was in the first format (with
// copies of whole files) and has been converted, to be saved.
func loadState(e Env, p string) (s *state, migrated bool, err error) {
	b, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return &state{Version: stateVersion}, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	var raw struct {
		Version int            `json:"version"`
		Records []storedRecord `json:"records"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, false, fmt.Errorf("%s is damaged (%v): move it away to start over", p, err)
	}
	if raw.Version > stateVersion {
		return nil, false, fmt.Errorf("%s was written by a newer monkbrowse (format %d): use that version to uninstall", p, raw.Version)
	}
	s = &state{Version: stateVersion}
	for _, sr := range raw.Records {
		r := sr.record
		if raw.Version < 2 && r.Via == "file" {
			r = migrateRecord(e, sr)
		}
		s.Records = append(s.Records, r)
	}
	return s, raw.Version < stateVersion, nil
}

// migrateRecord keeps what undo needs from a first-format record: the
// hash of the after-copy (so an untouched file is still recognised),
// whether the file and the servers object were install's, and the
// inserted text; the copies go.
func migrateRecord(e Env, sr storedRecord) record {
	r := sr.record
	r.Created = sr.Existed != nil && !*sr.Existed
	if sr.After != "" {
		r.SHA256 = hashOf([]byte(sr.After))
		if i := strings.Index(sr.After, r.Added); i >= 0 && r.Added != "" && sr.After[:i]+sr.After[i+len(r.Added):] == sr.Before {
			r.Offset = i
		}
	}
	for _, c := range Clients(e) {
		if c.Name == r.Client && c.Format != "toml" {
			r.CreatedTable = strings.Contains(r.Added, quote(c.Key)+":")
		}
	}
	return r
}

func (s *state) save(p string) error {
	s.Version = stateVersion
	if s.Records == nil {
		s.Records = []record{} // "records": [], not null
	}
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	return writeFileAtomic(p, append(b, '\n'), 0o600)
}
