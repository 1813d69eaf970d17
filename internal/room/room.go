// Package room keeps room on the disks of a served source for it to grow.
//
// oedl's commands before the window (calibrate, prepare, and the run's
// dumps beside a source the DBA serves again after a failed window) write
// gigabytes while production goes on. A database whose variable extent, BI
// or AI cannot extend because its filesystem is full stops (a full BI
// crashes the broker). So every command that writes checks, per
// filesystem, not only that its own files fit but that what it leaves
// free where the source's growing files are is at least the source's
// headroom (docs/decisions.md, "Room for the source to grow (safety trial
// 12)").
package room

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/units"
)

// MinHeadroom is the least room the default keeps for the source: an ERP
// database's BI alone grows by gigabytes in a long transaction.
const MinHeadroom = 1 << 30

// HeadroomShare is the default's share of the source's size (10%).
const HeadroomShare = 10

// FS names a filesystem: on this machine statfs's f_fsid (Of); on a host
// of a run across hosts, its ssh destination and the mount point df names
// (run's dfOn). A string, so that one Source serves both.
type FS string

// Of is the filesystem of path (of its nearest existing parent) and the
// bytes free there to an unprivileged writer.
func Of(path string) (FS, int64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(ExistingParent(path), &st); err != nil {
		return "", 0, fmt.Errorf("cannot read the free space of %s: %v", path, err)
	}
	return FS(fmt.Sprintf("fsid %x:%x", uint32(st.Fsid.X__val[0]), uint32(st.Fsid.X__val[1]))), int64(st.Bavail) * int64(st.Bsize), nil
}

// ExistingParent is dir, or its nearest parent that exists: where a
// directory not made yet will take its room from.
func ExistingParent(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil || d == filepath.Dir(d) {
			return d
		}
	}
}

// Source is where a source database grows and the room it is left.
type Source struct {
	DB       string
	Headroom int64
	growing  map[FS][]string
}

// Growing are the files of db that grow while it is served: every
// variable extent (data, before-image, after-image: a fixed extent is
// formatted when made) and its log, as prostrct list names them (full
// file names; a relative one is beside DB.db). Without a structure (none
// could be listed) the log and the control area stand for all of them.
func Growing(db string, st *openedge.Structure) []string {
	db = strings.TrimSuffix(filepath.Clean(db), ".db")
	out := []string{db + ".lg"}
	if st == nil {
		return append(out, db+".db")
	}
	for _, a := range st.Areas {
		for _, e := range a.Extents {
			if e.Fixed {
				continue
			}
			out = append(out, e.FileOf(db))
		}
	}
	return out
}

// ForSource locates db's growing files by filesystem. headroom as
// --source-headroom gives it (run.Config.SourceHeadroom): 0 asks for the
// default, the larger of MinHeadroom and HeadroomShare percent of the
// database's files; negative is none (the DBA states the source will not
// grow there).
func ForSource(db string, st *openedge.Structure, headroom int64) (*Source, error) {
	var size int64
	for _, p := range Files(db, st) {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			size += fi.Size()
		}
	}
	return ForSourceOn(db, st, headroom, size, func(dir string) (FS, error) {
		fs, _, err := Of(dir)
		return fs, err
	})
}

// ForSourceOn is ForSource for a source on any machine: size is what the
// files Files names hold there, and locate names the filesystem of a
// directory there (of its nearest existing parent). A run across hosts
// reads both over the source host's connection.
func ForSourceOn(db string, st *openedge.Structure, headroom, size int64, locate func(dir string) (FS, error)) (*Source, error) {
	s := &Source{DB: db, Headroom: max(0, headroom), growing: map[FS][]string{}}
	byDir := map[string]FS{}
	for _, f := range Growing(db, st) {
		dir := filepath.Dir(f)
		fs, ok := byDir[dir]
		if !ok {
			var err error
			if fs, err = locate(dir); err != nil {
				return nil, err
			}
			byDir[dir] = fs
		}
		s.growing[fs] = append(s.growing[fs], f)
	}
	if headroom == 0 {
		s.Headroom = max(MinHeadroom, size*HeadroomShare/100)
	}
	return s, nil
}

// Files are db's files whose size sets the default headroom: its control
// area and every extent the structure names (without one, the control
// area alone).
func Files(db string, st *openedge.Structure) []string {
	db = strings.TrimSuffix(filepath.Clean(db), ".db")
	out := []string{db + ".db"}
	if st != nil {
		for _, a := range st.Areas {
			for _, e := range a.Extents {
				out = append(out, e.FileOf(db))
			}
		}
	}
	return out
}

// Take is what one command writes on one filesystem: the directory it
// writes in (for messages), the bytes and what they are.
type Take struct {
	Dir   string
	Bytes int64
	What  []string
}

// ShortError is a filesystem where oedl's files would leave the source
// less than its headroom: exit 3, the machine (or the headroom stated) is
// to change.
type ShortError struct {
	Dir                  string
	Free, Take, Headroom int64
	What, Growing        []string
	DB                   string
}

func (e *ShortError) Error() string {
	left := max(0, e.Free-e.Take)
	grows := e.Growing
	if len(grows) > 4 {
		grows = append(slices.Clone(grows[:4]), fmt.Sprintf("%d more", len(e.Growing)-4))
	}
	return fmt.Sprintf("no room left for the source %s to grow on the filesystem of %s: %s free, oedl would take %s (%s), leaving %s, less than the %s kept for the source's files that grow there while it is served (%s); a full disk stops a served database. Free space there, put oedl's files on another filesystem, or state the room the source needs with --source-headroom SIZE",
		e.DB, e.Dir, units.FormatIEC(e.Free), units.FormatIEC(e.Take), strings.Join(e.What, " + "),
		units.FormatIEC(left), units.FormatIEC(e.Headroom), strings.Join(grows, ", "))
}

// Check refuses take on fs (free bytes free there) when it would leave
// the source less than its headroom on a filesystem where the source
// grows; a filesystem the source does not grow on is not its concern
// (the caller checks take fits). A nil Source checks nothing.
func (s *Source) Check(fs FS, free int64, take Take) error {
	if s == nil || len(s.growing[fs]) == 0 || free-take.Bytes >= s.Headroom {
		return nil
	}
	return &ShortError{Dir: take.Dir, Free: free, Take: take.Bytes, Headroom: s.Headroom, What: take.What, Growing: s.growing[fs], DB: s.DB}
}

// Grows says whether the source grows on fs.
func (s *Source) Grows(fs FS) bool { return s != nil && len(s.growing[fs]) > 0 }
