package run

import (
	"os"
	"path/filepath"
	"syscall"

	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/room"
)

// dirNeed is bytes the target puts in one directory.
type dirNeed struct {
	dir   string
	bytes int64
}

// targetNeeds is where the target's bytes land: the directories target.st
// names for each area's extents, not the .db's directory, which in
// production is rarely where the extents go (/db/prod.db, its extents on
// /data1 and /data2). Each area holds its tables' bytes (an index area
// their index bytes, when the plan knows them) and at least its fixed
// extents, which prostrct create makes at full size; what the fixed
// extents do not hold grows in the area's last extent. A relative extent
// path is taken from the target's directory, where prostrct create runs
// (createSteps). The order is target.st's. kept: the target exists (kept
// by a resume or after oedl prepare), its fixed extents with it, so only
// what its areas grow past them is needed. dirOf is the directory whose
// filesystem holds an extent path (existingParent here; on a target host
// the path itself, which dfOn walks up there).
func (r *runner) targetNeeds(st *openedge.Structure, kept bool, dirOf func(string) string) []dirNeed {
	byArea := map[string]int64{}
	for _, t := range r.cfg.Plan.Tables {
		byArea[t.DataArea] += t.Bytes
		byArea[t.IndexArea] += t.IndexBytes
		lobArea := t.LOBArea // a table's LOBs without an area of their own stay in its data area
		if lobArea == "" {
			lobArea = t.DataArea
		}
		byArea[lobArea] += t.LOBBytes
	}
	var out []dirNeed
	at := map[string]int{}
	add := func(path string, n int64) {
		if !filepath.IsAbs(path) {
			path = filepath.Join(filepath.Dir(r.cfg.Target), path)
		}
		dir := dirOf(filepath.Clean(path))
		if i, ok := at[dir]; ok {
			out[i].bytes += n
			return
		}
		at[dir] = len(out)
		out = append(out, dirNeed{dir: dir, bytes: n})
	}
	for _, a := range st.Areas {
		if len(a.Extents) == 0 {
			continue
		}
		var fixed int64
		for _, x := range a.Extents {
			if x.Fixed {
				fixed += x.SizeKB << 10
				if !kept {
					add(x.Path, x.SizeKB<<10)
				}
			}
		}
		if a.Type == openedge.AreaData {
			add(a.Extents[len(a.Extents)-1].Path, max(0, byArea[a.Name]-fixed))
		}
	}
	return out
}

// replacedSpace is the room create-target frees on each filesystem before
// it writes: the files of an earlier oedl target that --force (or a
// resume that creates the target again) removes first (proof.replace).
// Counted as needed again, the old extents refused a run on a disk that
// holds the new target once they are gone. A file counts by its blocks
// (a sparse extent frees what it holds, not its size), and only as its
// last link: removing one of two names frees nothing.
func (r *runner) replacedSpace() (map[room.FS]int64, error) {
	out := map[room.FS]int64{}
	if r.proof == nil {
		return out, nil
	}
	for _, f := range r.proof.replace {
		fi, err := os.Lstat(f.Resolved)
		if err != nil || !fi.Mode().IsRegular() {
			continue // gone since the proof, or no data of its own: frees nothing
		}
		sys, ok := fi.Sys().(*syscall.Stat_t)
		if !ok || sys.Nlink > 1 {
			continue
		}
		key, err := fsOf(filepath.Dir(f.Resolved))
		if err != nil {
			return nil, err
		}
		out[key] += sys.Blocks * 512 // st_blocks counts 512-byte units, whatever the block size
	}
	return out, nil
}
