package sim

import (
	"fmt"

	"github.com/oedl/oedl/internal/sim/msg"
	"github.com/oedl/oedl/internal/sim/store"
)

// extentFiles is the set of files the extents of a database resolve to,
// as prostrct create or add builds it from a .st. Two extents on one file
// would write over each other's blocks, and the real prostrct does not
// let them share one; it happens easily, because a path that is not an
// existing directory is taken as a file name, so two lines naming a
// directory that does not exist yet name one file. The control file and
// the log are held too: an extent there would destroy them.
type extentFiles struct {
	source string            // the .st, for messages
	holder map[string]string // file -> what holds it ("the extent of line 4")
}

func newExtentFiles(source string, paths store.Paths) *extentFiles {
	f := &extentFiles{source: source, holder: map[string]string{}}
	f.hold(paths.Control(), "the database's control file")
	f.hold(paths.Log(), "the database's log file")
	return f
}

// hold records a file that is not from a line of the .st (an extent the
// database already has, one prostrct adds by default).
func (f *extentFiles) hold(path, what string) { f.holder[path] = what }

// claim records the extent of .st line; an error names the line and what
// already holds the file.
func (f *extentFiles) claim(path string, line int) error {
	if what, taken := f.holder[path]; taken {
		return msg.E("oesim.st.sharedfile", f.source, line, path, what)
	}
	f.holder[path] = fmt.Sprintf("the extent of line %d", line)
	return nil
}
