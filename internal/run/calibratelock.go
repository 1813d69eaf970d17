package run

import (
	"os"
	"path/filepath"
	"regexp"
)

// LockCalibration takes WORK/oedl.lock for `oedl calibrate`, as a run
// takes it for its work directory: a calibration clears WORK/calibrate
// before it begins, and a second calibration given the same --work
// removed the scratch databases of the first while its broker served
// them (safety trial 9). The same lock refuses a calibration in the work
// directory of a live run or preparation.
//
// Unlike a run's, a calibration's --work may hold anyone's files (only
// WORK/calibrate is proven oedl's), so a file already named oedl.lock is
// taken only when it is one oedl writes there (empty, or a pid): the lock
// truncates it.
func LockCalibration(work string) (func(), error) {
	path := filepath.Join(work, LockFile)
	if st, err := os.Lstat(path); err == nil {
		data, rerr := os.ReadFile(path)
		if !st.Mode().IsRegular() || st.Size() > 64 || rerr != nil || !workLockContent.Match(data) {
			return nil, precondition("%s is not a lock oedl wrote (oedl truncates its lock file): remove it yourself or give another --work", path)
		}
	}
	if err := os.MkdirAll(work, 0o755); err != nil {
		return nil, precondition("work directory: %v", err)
	}
	return lockWork(work, "calibrate")
}

// workLockContent is what lockWork writes: a pid, the command's kind (an
// oedl before lefts29 wrote none) and a line break, or nothing yet, when
// oedl was killed between the open and the write.
var workLockContent = regexp.MustCompile(`^(\d+( (run|prepare|calibrate))?\n)?$`)
