package estimate

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/oedl/oedl/internal/manifest"
)

// ScratchDir is the directory in the work directory that a calibration
// clears and builds its dumps and scratch databases in.
const ScratchDir = "calibrate"

// scratchSubdir names the directories a calibration makes in ScratchDir:
// its dumps (dump, dump2...), concurrent loads (load3...), scratch
// databases (scratch0...), batches, extent timings and sort space. A new
// one must be added here, or a second calibration refuses the first's.
var scratchSubdir = regexp.MustCompile(`^(dump|load|scratch|batch|extentvar|extentfixed|sort)[0-9]*$`)

// scratchFiles are the files a calibration writes in ScratchDir.
var scratchFiles = map[string]bool{"calibrate.log": true, "batch.lst": true}

// CheckScratch refuses a ScratchDir in work that a calibration may not
// clear: one holding anything a calibration does not make (a DBA's notes,
// a database copied there), one no earlier calibration left (no
// calibrate.log), or one holding any of keep (the source, the plan, the
// output: paths a calibration reads or writes). Safety trial 6: a
// calibrate.log anywhere in it was taken as proof, and the source
// database kept beside it was removed with the rest.
func CheckScratch(work string, keep ...string) error {
	dir := filepath.Join(work, ScratchDir)
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) == 0 {
		return nil // none yet (or not a directory: the calibration reports it)
	}
	if st, err := os.Lstat(filepath.Join(dir, "calibrate.log")); err != nil || !st.Mode().IsRegular() {
		return fmt.Errorf("%s holds files that no earlier calibration left (no calibrate.log), and calibrate clears that directory", dir)
	}
	var foreign []string
	for _, e := range entries {
		ok := (e.Type().IsRegular() && scratchFiles[e.Name()]) || (e.IsDir() && scratchSubdir.MatchString(e.Name()))
		if !ok {
			foreign = append(foreign, e.Name())
		}
	}
	if len(foreign) > 0 {
		return fmt.Errorf("%s holds what no calibration makes (%s), and calibrate clears that directory", dir, strings.Join(foreign, ", "))
	}
	in := resolved(dir)
	for _, p := range keep {
		if p == "" {
			continue
		}
		if rel, err := filepath.Rel(in, resolved(p)); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return fmt.Errorf("%s is inside %s, which calibrate clears", p, dir)
		}
	}
	return nil
}

// resolved is p absolute and physical (manifest.Resolve: the links of its
// existing components followed, and ".." taken after them, as the kernel
// would; filepath.Abs would clean "link/.." away first), or p as given
// when it cannot be resolved.
func resolved(p string) string {
	if !filepath.IsAbs(p) {
		wd, err := os.Getwd()
		if err != nil {
			return p
		}
		p = wd + string(filepath.Separator) + p
	}
	if r, err := manifest.Resolve(manifest.OS{}, p); err == nil {
		return r
	}
	return p
}
