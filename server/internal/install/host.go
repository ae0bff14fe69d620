package install

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Where `monkbrowse install` registers the pairing host (issue 24), and
// the records that let `uninstall` remove exactly that: each manifest it
// wrote and, on Windows, each registry key, is a record in installed.json
// with Client HostClient (Via "native-host" with the manifest's File, or
// "registry" with the Key and the manifest File it names). Uninstall
// removes what is recorded — a `--browser-data-dir` folder too, without
// being given it again — and leaves alone what is no longer ours.

// HostClient is the Client of installed.json's pairing-host records.
const HostClient = "pairing-host"

// Registry is the little of the Windows registry the pairing host needs:
// default values of keys under HKEY_CURRENT_USER (key paths without
// "HKCU\"). OSRegistry is the real one on Windows; tests use a fake.
type Registry interface {
	// Default returns the key's default value; ok is false when the key
	// does not exist.
	Default(key string) (value string, ok bool, err error)
	// SetDefault creates the key (and its parents) and sets its default
	// value.
	SetDefault(key, value string) error
	// DeleteKey removes the key (it has no subkeys); a missing key is no
	// error.
	DeleteKey(key string) error
}

// windowsBrowsers are the per-user NativeMessagingHosts keys of Chrome
// (stable, Beta, Canary share it), Chromium, Edge and Brave, each with the
// user-data folder (under %LOCALAPPDATA%) that says the browser is there.
var windowsBrowsers = []struct{ dataDir, key string }{
	{`Google\Chrome\User Data`, `Software\Google\Chrome\NativeMessagingHosts\`},
	{`Google\Chrome Beta\User Data`, `Software\Google\Chrome\NativeMessagingHosts\`},
	{`Google\Chrome SxS\User Data`, `Software\Google\Chrome\NativeMessagingHosts\`},
	{`Chromium\User Data`, `Software\Chromium\NativeMessagingHosts\`},
	{`Microsoft\Edge\User Data`, `Software\Microsoft\Edge\NativeMessagingHosts\`},
	{`BraveSoftware\Brave-Browser\User Data`, `Software\BraveSoftware\Brave-Browser\NativeMessagingHosts\`},
}

// HostTargets is where the pairing host is registered.
type HostTargets struct {
	// Dirs are NativeMessagingHosts folders: a manifest goes into each.
	Dirs []string
	// Registry and Keys (Windows): each key's default value names
	// ManifestFile.
	Registry     Registry
	Keys         []string
	ManifestFile string
}

func (t HostTargets) empty() bool { return len(t.Dirs) == 0 && len(t.Keys) == 0 }

// DefaultHostTargets are the browsers found for e: the folders of HostDirs
// on Linux and macOS; on Windows the registry keys of the browsers whose
// user-data folder exists, naming a manifest in ~/.monkbrowse.
func DefaultHostTargets(e Env, reg Registry) HostTargets {
	if e.GOOS != "windows" {
		return HostTargets{Dirs: HostDirs(e)}
	}
	local := e.LocalAppData
	if local == "" {
		local = filepath.Join(e.Home, "AppData", "Local")
	}
	t := HostTargets{Registry: reg, ManifestFile: WindowsManifestFile(e)}
	for _, b := range windowsBrowsers {
		if fi, err := os.Stat(filepath.Join(local, filepath.FromSlash(strings.ReplaceAll(b.dataDir, `\`, "/")))); err == nil && fi.IsDir() {
			if k := b.key + NativeHostName; !slices.Contains(t.Keys, k) {
				t.Keys = append(t.Keys, k)
			}
		}
	}
	return t
}

// WindowsManifestFile is where the Windows registry keys point.
func WindowsManifestFile(e Env) string {
	return filepath.Join(e.Home, ".monkbrowse", "NativeMessagingHosts", NativeHostName+".json")
}

// InstallHost registers the pairing host at t and records each manifest
// and key in installed.json. A manifest of ours already there is
// replaced; a file or key that is not ours is left alone (an error names
// it).
func InstallHost(o Options, t HostTargets, m HostManifest) error {
	if t.empty() {
		fmt.Fprintln(o.Out, "pairing host: no Chrome, Chromium, Edge or Brave profile folder found; pass --browser-data-dir, or paste a code from monkbrowse pair in the extension's options")
		return nil
	}
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	st, err := o.loadState()
	if err != nil {
		return err
	}
	now := o.Env.now().UTC().Format(time.RFC3339)
	var errs []error
	for _, d := range t.Dirs {
		p := filepath.Join(d, NativeHostName+".json")
		if err := writeManifest(o, p, data); err != nil {
			errs = append(errs, err)
			continue
		}
		addHostRecord(st, record{Client: HostClient, Via: "native-host", File: p, Command: m.Path, At: now})
	}
	if len(t.Keys) > 0 {
		if t.Registry == nil {
			errs = append(errs, errors.New("this build cannot write the Windows registry"))
		} else if err := writeManifest(o, t.ManifestFile, data); err != nil {
			errs = append(errs, err)
		} else {
			addHostRecord(st, record{Client: HostClient, Via: "native-host", File: t.ManifestFile, Command: m.Path, At: now})
			for _, k := range t.Keys {
				if err := setHostKey(o, t.Registry, k, t.ManifestFile); err != nil {
					errs = append(errs, err)
					continue
				}
				addHostRecord(st, record{Client: HostClient, Via: "registry", Key: k, File: t.ManifestFile, Command: m.Path, At: now})
			}
		}
	}
	if !o.DryRun {
		if err := st.save(o.statePath()); err != nil {
			errs = append(errs, fmt.Errorf("the pairing host was registered but the record for uninstall could not be written: %w", err))
		}
	}
	return errors.Join(errs...)
}

func writeManifest(o Options, p string, data []byte) error {
	if raw, err := os.ReadFile(p); err == nil {
		if string(raw) == string(data) {
			fmt.Fprintf(o.Out, "pairing host: %s is already up to date\n", p)
			return nil
		}
		if !ours(raw) {
			return fmt.Errorf("%s exists and is not monkbrowse's host manifest: left alone", p)
		}
	}
	if o.DryRun {
		fmt.Fprintf(o.Out, "pairing host: would write %s\n", p)
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("creating %s: %w", filepath.Dir(p), err)
	}
	if err := writeFileAtomic(p, data, 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", p, err)
	}
	fmt.Fprintf(o.Out, "pairing host: wrote %s\n", p)
	return nil
}

func setHostKey(o Options, reg Registry, key, manifest string) error {
	cur, ok, err := reg.Default(key)
	if err != nil {
		return fmt.Errorf(`reading HKCU\%s: %w`, key, err)
	}
	if ok && cur == manifest {
		fmt.Fprintf(o.Out, "pairing host: HKCU\\%s is already up to date\n", key)
		return nil
	}
	if ok && cur != "" {
		if raw, err := os.ReadFile(cur); err == nil && !ours(raw) {
			return fmt.Errorf(`HKCU\%s names %s, which is not monkbrowse's host manifest: left alone`, key, cur)
		}
	}
	if o.DryRun {
		fmt.Fprintf(o.Out, "pairing host: would set HKCU\\%s to %s\n", key, manifest)
		return nil
	}
	if err := reg.SetDefault(key, manifest); err != nil {
		return fmt.Errorf(`writing HKCU\%s: %w`, key, err)
	}
	fmt.Fprintf(o.Out, "pairing host: set HKCU\\%s to %s\n", key, manifest)
	return nil
}

// addHostRecord records r once: an older record of the same manifest or
// key is replaced.
func addHostRecord(st *state, r record) {
	for i, old := range st.Records {
		if old.Client == HostClient && old.Via == r.Via && old.File == r.File && old.Key == r.Key {
			st.Records[i] = r
			return
		}
	}
	st.Records = append(st.Records, r)
}

// UninstallHost removes the pairing host: every recorded manifest and key
// (only those under t.Dirs when only is set, for --browser-data-dir), and
// an unrecorded manifest of ours in t.Dirs (one an older monkbrowse wrote).
// What is no longer ours stays and its record goes.
func UninstallHost(o Options, t HostTargets, only bool) error {
	st, err := o.loadState()
	if err != nil {
		return err
	}
	var errs []error
	var keep []record
	done := map[string]bool{}
	inScope := func(p string) bool {
		if !only {
			return true
		}
		for _, d := range t.Dirs {
			if filepath.Dir(p) == filepath.Clean(d) {
				return true
			}
		}
		return false
	}
	// Keys before the manifest they name: newest first.
	for i := len(st.Records) - 1; i >= 0; i-- {
		r := st.Records[i]
		if r.Client != HostClient || !inScope(r.File) {
			keep = append(keep, r)
			continue
		}
		var err error
		switch r.Via {
		case "registry":
			err = removeHostKey(o, t.Registry, r)
		case "native-host":
			err = removeManifest(o, r.File)
			done[r.File] = true
		default:
			err = fmt.Errorf("the record names a kind of change this monkbrowse does not know (%q); left as it is", r.Via)
		}
		if err != nil {
			errs = append(errs, err)
			keep = append(keep, r)
		}
	}
	for _, d := range t.Dirs {
		if p := filepath.Join(d, NativeHostName+".json"); !done[p] {
			if err := removeManifest(o, p); err != nil {
				errs = append(errs, err)
			}
		}
	}
	if !o.DryRun {
		slices.Reverse(keep)
		st.Records = keep
		if err := st.save(o.statePath()); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func removeManifest(o Options, p string) error {
	raw, err := os.ReadFile(p)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !ours(raw) {
		fmt.Fprintf(o.Out, "pairing host: %s is not monkbrowse's host manifest any more: left alone\n", p)
		return nil
	}
	if o.DryRun {
		fmt.Fprintf(o.Out, "pairing host: would remove %s\n", p)
		return nil
	}
	if err := os.Remove(p); err != nil {
		return err
	}
	fmt.Fprintf(o.Out, "pairing host: removed %s\n", p)
	return nil
}

func removeHostKey(o Options, reg Registry, r record) error {
	if reg == nil {
		return fmt.Errorf(`HKCU\%s: this build cannot change the Windows registry; uninstall with monkbrowse on Windows`, r.Key)
	}
	cur, ok, err := reg.Default(r.Key)
	if err != nil {
		return fmt.Errorf(`reading HKCU\%s: %w`, r.Key, err)
	}
	if !ok {
		return nil
	}
	if cur != r.File {
		fmt.Fprintf(o.Out, "pairing host: HKCU\\%s now names %s, not monkbrowse's manifest: left alone\n", r.Key, cur)
		return nil
	}
	if o.DryRun {
		fmt.Fprintf(o.Out, "pairing host: would remove HKCU\\%s\n", r.Key)
		return nil
	}
	if err := reg.DeleteKey(r.Key); err != nil {
		return fmt.Errorf(`removing HKCU\%s: %w`, r.Key, err)
	}
	fmt.Fprintf(o.Out, "pairing host: removed HKCU\\%s\n", r.Key)
	return nil
}

// CheckHost reports, for doctor, the registrations that are right (ok)
// and those that are missing or do not start command.
func CheckHost(t HostTargets, command string) (ok, problems []string) {
	ok, problems = CheckNativeHost(t.Dirs, command)
	for _, k := range t.Keys {
		if t.Registry == nil {
			problems = append(problems, fmt.Sprintf(`HKCU\%s cannot be read by this build`, k))
			continue
		}
		cur, found, err := t.Registry.Default(k)
		switch {
		case err != nil:
			problems = append(problems, fmt.Sprintf(`HKCU\%s: %v`, k, err))
		case !found || cur == "":
			problems = append(problems, fmt.Sprintf(`HKCU\%s is missing: run monkbrowse install`, k))
		default:
			kok, kp := CheckNativeHost([]string{filepath.Dir(cur)}, command)
			if filepath.Base(cur) != NativeHostName+".json" {
				kok, kp = nil, []string{fmt.Sprintf(`HKCU\%s names %s, not monkbrowse's manifest: run monkbrowse install`, k, cur)}
			}
			for range kok {
				ok = append(ok, `HKCU\`+k)
			}
			problems = append(problems, kp...)
		}
	}
	return ok, problems
}
