package main

import (
	"context"
	"fmt"
	"runtime/debug"
)

// buildInfo is what the binary knows about how it was built.
type buildInfo struct {
	Version    string `json:"version"`               // the module version, or (devel)
	Commit     string `json:"commit,omitempty"`      // the VCS revision
	CommitTime string `json:"commit_time,omitempty"` // when that revision was committed
	Modified   bool   `json:"modified"`              // the work tree had uncommitted changes
	Go         string `json:"go"`                    // the toolchain
}

// readBuildInfo reads the module version and the VCS stamp that go build records.
func readBuildInfo() buildInfo {
	out := buildInfo{Version: "(unknown)"}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return out
	}
	out.Go = bi.GoVersion
	if bi.Main.Version != "" {
		out.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			out.Commit = s.Value
		case "vcs.time":
			out.CommitTime = s.Value
		case "vcs.modified":
			out.Modified = s.Value == "true"
		}
	}
	return out
}

func (e env) version(_ context.Context, args []string) error {
	fs := e.newFlags("version")
	asJSON := fs.Bool("json", false, "print machine-readable JSON")
	if err := e.parse(fs, args); err != nil {
		return err
	}
	bi := readBuildInfo()
	if *asJSON {
		return printJSON(e.stdout, bi)
	}
	commit := "unknown commit"
	if bi.Commit != "" {
		commit = "commit " + bi.Commit
		if bi.CommitTime != "" {
			commit += " of " + bi.CommitTime
		}
		if bi.Modified {
			commit += ", with uncommitted changes"
		}
	}
	_, err := fmt.Fprintf(e.stdout, "herdbook %s (%s; %s)\n", bi.Version, commit, bi.Go)
	return err
}
