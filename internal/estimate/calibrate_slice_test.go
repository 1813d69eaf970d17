package estimate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/execx"
	"github.com/oedl/oedl/internal/openedge"
)

func TestChooseSliceKey(t *testing.T) {
	fields := []*openedge.DFField{
		{Name: "domain", Type: "character"}, {Name: "nbr", Type: "integer"}, {Name: "ref", Type: "int64"},
		{Name: "eff", Type: "date"}, {Name: "amt", Type: "decimal"}, {Name: "arr", Type: "integer", Extent: 5},
	}
	ix := func(name string, unique, primary bool, fields ...string) *openedge.DFIndex {
		x := &openedge.DFIndex{Name: name, Unique: unique, Primary: primary}
		for _, f := range fields {
			x.Fields = append(x.Fields, openedge.DFIndexField{Name: f})
		}
		return x
	}
	for _, tc := range []struct {
		name    string
		indexes []*openedge.DFIndex
		want    string // "field/index", "" = none
	}{
		{"QAD: every index leads with the domain", []*openedge.DFIndex{ix("pk", true, true, "domain", "nbr"), ix("eff", false, false, "domain", "eff")}, ""},
		{"unique primary integer", []*openedge.DFIndex{ix("eff", false, false, "eff"), ix("pk", true, true, "nbr")}, "nbr/pk"},
		{"unique beats primary", []*openedge.DFIndex{ix("pk", false, true, "eff"), ix("ref", true, false, "ref", "domain")}, "ref/ref"},
		{"a date when nothing else", []*openedge.DFIndex{ix("pk", true, true, "domain"), ix("eff", false, false, "eff", "nbr")}, "eff/eff"},
		{"decimal", []*openedge.DFIndex{ix("amt", false, false, "amt")}, "amt/amt"},
		{"array fields and word indexes do not qualify", []*openedge.DFIndex{ix("arr", true, true, "arr"), {Name: "w", Word: true, Fields: []openedge.DFIndexField{{Name: "nbr"}}}}, ""},
		{"no index", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key, ok := chooseSliceKey(&openedge.DFTable{Name: "t", Fields: fields, Indexes: tc.indexes})
			got := ""
			if ok {
				got = key.field + "/" + key.index
			}
			assert.Equal(t, tc.want, got)
		})
	}
}

// keyRunner answers dumpspecified like the utility would for a table whose
// key values are keys: the records in the range, counted, and a .bd file.
type keyRunner struct {
	keys  []int64
	calls []string
}

func (r *keyRunner) Run(_ context.Context, c execx.Cmd) (execx.Result, error) {
	// db -C dumpspecified table.field OP value dir -preferidx index
	op, value, dir := c.Args[4], c.Args[5], c.Args[6]
	r.calls = append(r.calls, op+" "+value)
	v, err := strconv.ParseInt(value, 10, 64)
	if err != nil {
		return execx.Result{ExitCode: 1}, err
	}
	n := 0
	for _, k := range r.keys {
		if op == "LE" && k <= v {
			n++
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "t.bd"), []byte("x"), 0o644); err != nil {
		return execx.Result{}, err
	}
	return execx.Result{Output: fmt.Sprintf("Dumped %d records. (13932)\nBinary Dump complete. (6254)\n", n)}, nil
}

// TestSliceLargestFindsARange: dense keys from 1 land on the first probe;
// keys that start high are found by doubling; a range that overshoots is
// bisected; only the kept probe's files remain.
func TestSliceLargestFindsARange(t *testing.T) {
	seq := func(from, n, step int64) []int64 {
		var out []int64
		for i := range n {
			out = append(out, from+i*step)
		}
		return out
	}
	for _, tc := range []struct {
		name      string
		keys      []int64
		want      int64
		maxProbes int
	}{
		{"surrogate keys from 1", seq(1, 10_000, 1), 1000, 1},
		{"keys from one million", seq(1_000_000, 10_000, 1), 1000, 22},
		{"sparse keys", seq(1, 10_000, 1000), 1000, 40},
		{"a dense block after a gap", append(seq(1, 10, 1), seq(5_000, 100_000, 1)...), 1000, 40},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			r := &keyRunner{keys: tc.keys}
			c := &calibrator{cfg: CalibrateConfig{DLC: dir, Source: "src", Runner: r}, dir: dir}
			p, err := c.sliceLargest(context.Background(), &sampleTable{name: "PUB.t"}, sliceKey{field: "nbr", typ: "integer", index: "pk"}, tc.want)
			require.NoError(t, err)
			assert.GreaterOrEqual(t, p.records, tc.want, "probes %v", r.calls)
			assert.LessOrEqual(t, p.records, 2*tc.want, "probes %v", r.calls)
			assert.LessOrEqual(t, len(r.calls), tc.maxProbes, "probes %v", r.calls)
			kept, err := filepath.Glob(filepath.Join(dir, "dump", "*"))
			require.NoError(t, err)
			assert.Equal(t, []string{p.dir}, kept, "only the kept probe's dump remains")
			assert.FileExists(t, filepath.Join(p.dir, "t.bd"))
		})
	}
}

func TestSliceLargestGivesUpOnATableWithoutTheRecords(t *testing.T) {
	dir := t.TempDir()
	c := &calibrator{cfg: CalibrateConfig{DLC: dir, Source: "src", Runner: &keyRunner{keys: []int64{-5, -4}}}, dir: dir}
	_, err := c.sliceLargest(context.Background(), &sampleTable{name: "PUB.t"}, sliceKey{field: "nbr", typ: "integer"}, 10)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "PUB.t.nbr")
	assert.LessOrEqual(t, len(c.cfg.Runner.(*keyRunner).calls), 32, "an INTEGER key is not probed past 2^31")
	kept, _ := filepath.Glob(filepath.Join(dir, "dump", "*"))
	assert.Empty(t, kept, "no probe left behind")
}

// failingRunner fails every call after writing into the dump directory,
// as a utility that dies half way does.
type failingRunner struct{}

func (failingRunner) Run(_ context.Context, c execx.Cmd) (execx.Result, error) {
	_ = os.WriteFile(filepath.Join(c.Args[6], "t.bd"), []byte("half"), 0o644)
	return execx.Result{ExitCode: 1, Output: "** something went wrong"}, execx.ErrExit
}

func TestSliceLargestCleansUpAFailedProbe(t *testing.T) {
	dir := t.TempDir()
	c := &calibrator{cfg: CalibrateConfig{DLC: dir, Source: "src", Runner: failingRunner{}}, dir: dir}
	_, err := c.sliceLargest(context.Background(), &sampleTable{name: "PUB.t"}, sliceKey{field: "nbr", typ: "integer"}, 10)
	require.Error(t, err)
	kept, _ := filepath.Glob(filepath.Join(dir, "dump", "*"))
	assert.Empty(t, kept, "a failed probe leaves no files")
}
