package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/sim/bd"
	"github.com/oedl/oedl/internal/sim/store"
)

// Table and area names that break anything built from shell strings: $(...),
// quotes, #, %, & and non-ASCII letters. OpenEdge table names cannot hold
// spaces or double quotes (tabanalys could not print them), area names can.
const awkwardST = `b .
d "Schema Area":6,64;1 .
d "Data $(touch pwned) 'q' ÄÖ":7,64;8 .
d "Index Area":8,64;8 .
`

const awkwardDF = `ADD TABLE "odd$(touch_pwned)"
  AREA "Data $(touch pwned) 'q' ÄÖ"
  DUMP-NAME "odd"

ADD FIELD "f1" OF "odd$(touch_pwned)" AS character 
  FORMAT "x(20)"
  INITIAL ""
  POSITION 2
  MAX-WIDTH 40
  ORDER 10

ADD INDEX "i1" ON "odd$(touch_pwned)" 
  AREA "Index Area"
  PRIMARY
  INDEX-FIELD "f1" ASCENDING 

ADD TABLE "naïve-tbl#%&"
  AREA "Data $(touch pwned) 'q' ÄÖ"
  DUMP-NAME "naive"

ADD FIELD "n" OF "naïve-tbl#%&" AS integer 
  FORMAT "->,>>>,>>9"
  INITIAL "0"
  POSITION 2
  MAX-WIDTH 4
  ORDER 10

ADD INDEX "n" ON "naïve-tbl#%&" 
  AREA "Index Area"
  PRIMARY
  INDEX-FIELD "n" ASCENDING 

.
PSC
cpstream=UTF-8
.
0000000000
`

func TestAwkwardNames(t *testing.T) {
	f := setup(t, "sports")
	dir := t.TempDir()
	run := func(name string, args ...string) {
		t.Helper()
		cmd := exec.Command(filepath.Join(f.dlc, "bin", name), args...)
		cmd.Dir, cmd.Env = dir, append(os.Environ(), "DLC="+f.dlc)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s %v\n%s", name, args, out)
	}
	src := filepath.Join(dir, "awk")
	require.NoError(t, os.WriteFile(src+".st", []byte(awkwardST), 0o644))
	require.NoError(t, os.WriteFile(src+".df", []byte(awkwardDF), 0o644))
	run("prostrct", "create", src, src+".st", "-blocksize", "8192")
	run("procopy", filepath.Join(f.dlc, "empty8"), src)
	run("_progres", "-b", "-db", src, "-1", "-p", "prodict/load_df.p", "-param", src+".df")

	// Fill the tables: dump each (empty) for its header, then write and
	// load a .bd with records of our own.
	rows := map[string]func(i int) []any{
		"PUB.odd$(touch_pwned)": func(i int) []any { return []any{"v$(x)'\"" + string(rune('a'+i%26))} },
		"PUB.naïve-tbl#%&":      func(i int) []any { return []any{int64(i)} },
	}
	counts := map[string]int{"PUB.odd$(touch_pwned)": 300, "PUB.naïve-tbl#%&": 1234}
	for table, row := range rows {
		out := filepath.Join(dir, "seed")
		require.NoError(t, os.MkdirAll(out, 0o755))
		run("proutil", src, "-C", "dump", table, out)
		entries, err := os.ReadDir(out)
		require.NoError(t, err)
		require.Len(t, entries, 1)
		empty := filepath.Join(out, entries[0].Name())
		fh, err := os.Open(empty)
		require.NoError(t, err)
		r, err := bd.NewReader(fh)
		require.NoError(t, err)
		fh.Close()
		h := *r.Header
		w, err := os.Create(empty)
		require.NoError(t, err)
		bw, err := bd.NewWriter(w, &h)
		require.NoError(t, err)
		for i := 0; i < counts[table]; i++ {
			rec, err := store.EncodeRecord(nil, row(i))
			require.NoError(t, err)
			require.NoError(t, bw.WriteRecord(rec, store.Checksum(rec)))
		}
		require.NoError(t, bw.Close())
		require.NoError(t, w.Close())
		run("proutil", src, "-C", "load", empty)
		require.NoError(t, os.RemoveAll(out))
	}

	// The loads left the indexes inactive, as a real binary load does.
	run("proutil", src, "-C", "idxbuild", "all")

	e := &env{t: t, fx: f, dir: dir, source: src, target: filepath.Join(dir, "new", "awk"), work: filepath.Join(dir, "work"),
		extra: []string{"DLC=" + f.dlc}}
	planDir := filepath.Join(dir, "plan")
	pl := e.oedl(nil, "plan", "--source", src, "--dlc", f.dlc, "-o", planDir)
	require.Equal(t, 0, pl.code, pl.stderr)
	e.fx = &fixture{bin: f.bin, dlc: f.dlc, planDir: planDir}
	r := e.oedl(nil, e.runArgs("--dump-jobs", "2", "--load-jobs", "2")...)
	require.Equal(t, 0, r.code, r.stderr)
	v := e.verified()
	got := map[string]int64{}
	for _, c := range v.After.Tables {
		got[c.Table] = c.Records
	}
	for table, n := range counts {
		assert.Equal(t, int64(n), got[table], table)
	}
	assert.NoFileExists(t, filepath.Join(dir, "pwned"), "a name was run through a shell")
	assert.NoFileExists(t, filepath.Join(e.work, "pwned"), "a name was run through a shell")
}
