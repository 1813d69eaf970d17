package plan

import (
	"fmt"
	"path/filepath"
)

// AINotIsolated names the after-image directories that are also a data or
// the BI directory. Progress: "The after-image files must be isolated to
// provide maximum protection from media loss ... at the device and file
// system levels" (Database Essentials, "Isolate for disaster recovery"): a
// disk lost with the database on it then takes the notes that would roll
// its backup forward. The plan sees directories, not devices (it may be
// made on another machine), so it names only the same directory; a
// warning, not a refusal, since a test target may want it so.
func (p *Plan) AINotIsolated() []string {
	shared := map[string]string{filepath.Clean(p.Policy.BIDir): "the BI extents"}
	for _, d := range p.Policy.DataDirs {
		shared[filepath.Clean(d)] = "the data extents"
	}
	var out []string
	seen := map[string]bool{}
	for _, d := range p.Policy.AIDirs {
		c := filepath.Clean(d)
		if what, ok := shared[c]; ok && !seen[c] {
			seen[c] = true
			out = append(out, fmt.Sprintf("after-image extents in %s, with %s: a disk lost there takes the database and the notes that would roll its backup forward; give --ai-dir a directory on another disk", d, what))
		}
	}
	return out
}
