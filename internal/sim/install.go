package sim

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/oedl/oedl/internal/atomicfile"
	"github.com/oedl/oedl/internal/sim/msg"
	"github.com/oedl/oedl/internal/sim/store"
)

// emptyBlockSizes are the $DLC/emptyN databases, N in KB. $DLC/empty is
// the 4 KB one.
var emptyBlockSizes = []int{1, 2, 4, 8}

// DefaultCodepage is the codepage of the empty databases.
const DefaultCodepage = "ISO8859-1"

// Install lays out a fake DLC at dir: dir/bin/<utility> for every simulated
// utility (and oesim itself) as hard links to exe, or copies when a link is
// not possible; the empty1/2/4/8 databases (and empty = empty4); the
// message files (package msg); and dir/version.
//
// dir must be new, empty, or an earlier oesim install (it has bin/oesim):
// anything else may be a licensed OpenEdge ($DLC/bin/proutil, its empty
// databases, promsgs), which an install would replace file by file.
func Install(dir, exe string) error {
	if err := installable(dir); err != nil {
		return err
	}
	bin := filepath.Join(dir, "bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		return err
	}
	names := []string{"oesim"}
	for n := range utilities {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		if err := linkOrCopy(exe, filepath.Join(bin, n)); err != nil {
			return fmt.Errorf("install %s: %w", n, err)
		}
	}
	for _, kb := range emptyBlockSizes {
		if err := makeEmpty(filepath.Join(dir, fmt.Sprintf("empty%d", kb)), kb*1024); err != nil {
			return err
		}
	}
	if err := makeEmpty(filepath.Join(dir, "empty"), 4096); err != nil {
		return err
	}
	// The message files, as OpenEdge installs them for each language:
	// $DLC/promsgs and $DLC/prolang/<language>/promsgs.<language>.
	if err := msg.Install(dir); err != nil {
		return fmt.Errorf("install the message files: %w", err)
	}
	return atomicfile.WriteFileNoSync(filepath.Join(dir, "version"), []byte(Release+"\n"))
}

// installable refuses a directory that holds files and no oesim.
func installable(dir string) error {
	entries, err := os.ReadDir(dir)
	if err != nil || len(entries) == 0 {
		return nil // new (made below), empty, or an error MkdirAll reports
	}
	if _, err := os.Lstat(filepath.Join(dir, "bin", "oesim")); err == nil {
		return nil
	}
	return fmt.Errorf("%s is not empty and holds no oesim install (no bin/oesim): it may be an OpenEdge install, and oesim installs only into a new or empty directory or over an earlier oesim", dir)
}

// makeEmpty (re)creates one emptyN database: meta-schema only, no tables.
func makeEmpty(base string, blockSize int) error {
	p := store.PathsFor(base)
	// Replace whatever an earlier install left, readable or not.
	for _, pattern := range []string{base + ".db", base + ".b[0-9]*", base + ".d[0-9]*", base + ".lk", base + ".lg"} {
		old, _ := filepath.Glob(pattern)
		for _, f := range old {
			if err := os.Remove(f); err != nil {
				return err
			}
		}
	}
	// The empty databases are relative-path ones, so that prodb of them
	// makes relative-path databases as OpenEdge's do.
	areas := store.DefaultAreas(p, blockSize)
	if err := store.MakeRelative(p, areas); err != nil {
		return err
	}
	_, err := store.Create(p, areas, blockSize, DefaultCodepage, false, nil)
	return err
}

// linkOrCopy makes dst the same program as src.
func linkOrCopy(src, dst string) error {
	os.Remove(dst)
	if err := os.Link(src, dst); err == nil {
		return nil
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	tmp := dst + ".tmp"
	out, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		os.Remove(tmp)
		return err
	}
	if err := out.Close(); err != nil {
		os.Remove(tmp)
		return err
	}
	return os.Rename(tmp, dst)
}
