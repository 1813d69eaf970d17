package room

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/openedge"
)

// TestGrowing: what grows of a served database is its variable extents
// (data, BI, AI) and its log; a fixed extent is formatted when made.
func TestGrowing(t *testing.T) {
	st := &openedge.Structure{Areas: []*openedge.StructArea{
		{Type: openedge.AreaBeforeImage, Extents: []openedge.Extent{{Path: "/bi/prod.b1", Fixed: true, SizeKB: 1024}, {Path: "/bi/prod.b2"}}},
		{Type: openedge.AreaData, Name: "Data", Number: 7, Extents: []openedge.Extent{{Path: "/db/prod_7.d1", Fixed: true, SizeKB: 1024}, {Path: "prod_7.d2"}}},
		{Type: openedge.AreaAfterImage, Extents: []openedge.Extent{{Path: "/ai/prod.a1"}}},
	}}
	for _, tc := range []struct {
		name string
		st   *openedge.Structure
		want []string
	}{
		{"variable extents and the log", st, []string{"/db/prod.lg", "/bi/prod.b2", "/db/prod_7.d2", "/ai/prod.a1"}},
		{"no structure: the log and the control area", nil, []string{"/db/prod.lg", "/db/prod.db"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, Growing("/db/prod.db", tc.st))
		})
	}
}

// TestCheck: a take is refused where the source grows and it would leave
// less than the headroom; elsewhere, or with the headroom left, it
// passes. The refusal names the directory, the figures and the files.
func TestCheck(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "prod")
	require.NoError(t, os.WriteFile(db+".db", make([]byte, 4096), 0o644))
	s, err := ForSource(db, nil, 100<<20)
	require.NoError(t, err)
	fs, _, err := Of(dir)
	require.NoError(t, err)
	other := fs + " another"
	for _, tc := range []struct {
		name       string
		fs         FS
		free, take int64
		refused    bool
	}{
		{"leaves the headroom", fs, 300 << 20, 200 << 20, false},
		{"leaves less than the headroom", fs, 300 << 20, 201 << 20, true},
		{"takes all of it", fs, 300 << 20, 300 << 20, true},
		{"another filesystem", other, 300 << 20, 300 << 20, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := s.Check(tc.fs, tc.free, Take{Dir: "/work", Bytes: tc.take, What: []string{"dumps"}})
			if !tc.refused {
				assert.NoError(t, err)
				return
			}
			var short *ShortError
			require.True(t, errors.As(err, &short), "%v", err)
			assert.Contains(t, err.Error(), "filesystem of /work")
			assert.Contains(t, err.Error(), db+".lg")
			assert.Contains(t, err.Error(), "100 MiB kept")
			assert.Contains(t, err.Error(), "--source-headroom")
		})
	}
	var none *Source
	assert.NoError(t, none.Check(fs, 0, Take{Bytes: 1}), "no source, nothing to keep")
}

// TestDefaultHeadroom: the larger of MinHeadroom and a tenth of the
// database's files.
func TestDefaultHeadroom(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "prod")
	require.NoError(t, os.WriteFile(db+".db", nil, 0o644))
	f, err := os.Create(filepath.Join(dir, "prod_7.d1"))
	require.NoError(t, err)
	require.NoError(t, f.Truncate(20<<30)) // sparse: its size is what counts
	require.NoError(t, f.Close())
	st := &openedge.Structure{Areas: []*openedge.StructArea{{Type: openedge.AreaData, Name: "D", Number: 7,
		Extents: []openedge.Extent{{Path: filepath.Join(dir, "prod_7.d1")}}}}}
	s, err := ForSource(db, st, 0)
	require.NoError(t, err)
	assert.Equal(t, int64(2<<30), s.Headroom, "a tenth of 20 GiB")
	s, err = ForSource(db, nil, 0)
	require.NoError(t, err)
	assert.Equal(t, int64(MinHeadroom), s.Headroom)
	s, err = ForSource(db, nil, -1)
	require.NoError(t, err)
	assert.Zero(t, s.Headroom, "stated none")
}
