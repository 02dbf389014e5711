package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// Stamped by a release build (make release):
//
//	go build -ldflags "-X main.version=v1.2.3 -X main.commit=<sha>" ./cmd/alertd
//
// Left empty, they fall back to what the Go toolchain recorded in the
// binary (debug.ReadBuildInfo).
var (
	version string
	commit  string
)

// buildVersion is what `alertd version` prints.
type buildVersion struct {
	Version, Commit, Go, Platform string
}

func currentVersion() buildVersion {
	v := buildVersion{Version: version, Commit: commit, Go: runtime.Version(),
		Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if info, ok := debug.ReadBuildInfo(); ok {
		if v.Version == "" && info.Main.Version != "" {
			v.Version = info.Main.Version // a module version under go install, else "(devel)"
		}
		var rev string
		var modified bool
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			}
		}
		if v.Commit == "" && rev != "" {
			v.Commit = rev
			if modified {
				v.Commit += "-dirty"
			}
		}
	}
	if v.Version == "" {
		v.Version = "(devel)"
	}
	if v.Commit == "" {
		v.Commit = "unknown"
	}
	return v
}

// runVersion prints one line: version, commit, Go version and platform.
func runVersion(args []string, w io.Writer) error {
	if len(args) > 0 {
		return fmt.Errorf("unexpected argument %q", args[0])
	}
	v := currentVersion()
	_, err := fmt.Fprintf(w, "alertd %s commit %s %s %s\n", v.Version, v.Commit, v.Go, v.Platform)
	return err
}
