package cli

import (
	"context"
	"io"
	"os"
	"runtime"

	"github.com/monkbrowse/monkbrowse/server/internal/control"
	"github.com/monkbrowse/monkbrowse/server/internal/daemon"
	"github.com/monkbrowse/monkbrowse/server/internal/doctor"
	"github.com/monkbrowse/monkbrowse/server/internal/httpmcp"
	"github.com/monkbrowse/monkbrowse/server/internal/install"
	"github.com/monkbrowse/monkbrowse/tools"
)

// runDoctor is `monkbrowse doctor`: the ports, the connection, the owner's
// report (over the control port), the pairing secret, the pairing host and
// the HTTP endpoint, each with what to do.
func runDoctor(ctx context.Context, cfg config, stdout io.Writer) int {
	return doctor.Run(ctx, doctor.Options{
		Port: cfg.port, ControlPort: cfg.controlPort, Out: stdout,
		QueryOwner: queryOwner,
		Pairing: func() (string, error) {
			_, path, err := control.EnsurePairingSecret("")
			return path, err
		},
		NativeHost: func() (ok, problems []string) {
			env, err := install.EnvFromOS(runtime.GOOS)
			if err != nil {
				return nil, []string{err.Error()}
			}
			self, _ := os.Executable()
			return install.CheckHost(install.DefaultHostTargets(env, install.OSRegistry()), self)
		},
		HTTPURL:   "http://" + httpmcp.DefaultAddr + httpmcp.Path,
		HTTPToken: httpTokenState,
	})
}

// queryOwner asks the owner on the control port for doctor's report.
func queryOwner(ctx context.Context, controlPort int) (*doctor.OwnerStatus, error) {
	st, err := daemon.QueryStatus(ctx, controlPort, "")
	if err != nil {
		return nil, err
	}
	out := &doctor.OwnerStatus{PID: st.OwnerPID, Version: st.Version, Port: st.ExtensionPort, Forwarders: st.Forwarders, HTTP: st.HTTP}
	for _, p := range st.Profiles {
		out.Profiles = append(out.Profiles, tools.ProfileInfo{ID: p.ProfileID, Label: p.Label, Slug: p.Slug, Connected: p.Connected, Tabs: p.Tabs, Policy: p.Policy})
	}
	return out, nil
}

// httpTokenState is doctor's view of the HTTP token file: where, whether
// it exists, its mode and owner (it is neither read nor created here).
func httpTokenState() (doctor.TokenFile, error) {
	f, err := control.StatHTTPToken("")
	return doctor.TokenFile{Path: f.Path, Exists: f.Exists, Mode: f.Mode, UID: f.UID, UIDKnown: f.UIDKnown}, err
}
