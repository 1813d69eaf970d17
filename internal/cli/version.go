package cli

import (
	"os"
	"runtime/debug"
	"strings"

	"github.com/oedl/oedl/internal/openedge"
)

// version is oedl's version, set when a release is built:
//
//	go build -ldflags "-X github.com/oedl/oedl/internal/cli.version=v1.2.0" ./cmd/oedl
//
// (make build sets it from git describe). Without it, Version reads what
// the Go toolchain recorded in the binary.
var version = ""

// Version is oedl's version: the one set at build time, else the module
// version and VCS revision in the binary's build information, else
// "devel".
func Version() string {
	if version != "" {
		return version
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	v := bi.Main.Version
	if v == "" || v == "(devel)" {
		v = "devel"
	}
	var rev, when, dirty string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value[:min(12, len(s.Value))]
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				dirty = ", modified"
			}
		}
	}
	if rev != "" {
		v += " (" + strings.TrimSpace(rev+" "+when) + dirty + ")"
	}
	return v
}

// versionText is what `oedl --version` prints: oedl's version and the
// OpenEdge release $DLC points to, the two a support ticket asks for.
func versionText() string {
	oe := "OpenEdge: unknown ($DLC is not set)"
	if dlc := os.Getenv("DLC"); dlc != "" {
		if v := openedge.Version(dlc); v != "" {
			oe = v + " (" + dlc + ")"
		} else {
			oe = "OpenEdge: unknown (no " + dlc + "/version)"
		}
	}
	return "oedl " + Version() + "\n" + oe + "\n"
}
