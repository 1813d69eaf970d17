package cli

import (
	"github.com/oedl/oedl/internal/hosts"
)

// readHosts reads --hosts (nil without one). A hosts file names the
// databases: --source and --target beside it would be a second answer to
// the same question, so they are refused rather than silently ranked.
func readHosts(path, source, target string) (*hosts.File, error) {
	if path == "" {
		return nil, nil
	}
	if source != "" || target != "" {
		return nil, UsageError("--hosts names the source and the target (%s): leave out --source and --target", path)
	}
	f, err := hosts.Read(path)
	if err != nil {
		return nil, UsageError("--hosts: %v", err)
	}
	return f, nil
}
