package store

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSchemaLockIsTheFirstBIExtent: the schema lock is the BI extent the
// structure named, wherever it is, and DB.b1 only while there is no
// DB.db to name one. A structure whose areas fill more than the first
// read of DB.db (headRead) is read on.
func TestSchemaLockIsTheFirstBIExtent(t *testing.T) {
	manyAreas := func(bi string) *Control {
		c := &Control{Format: ControlVersion, BlockSize: 8192}
		for i := range 3000 {
			c.Areas = append(c.Areas, &Area{Number: 7 + i, Name: fmt.Sprintf("Data area number %d", i), Type: 'd', RPB: 64, BPC: 8,
				Extents: []Extent{{Path: fmt.Sprintf("/data/a-long-directory-name/x_%d.d1", 7+i)}}})
		}
		c.Areas = append(c.Areas, &Area{Number: 3, Name: "Primary Recovery Area", Type: 'b', Extents: []Extent{{Path: bi}, {Path: bi + "2"}}})
		return c
	}
	tests := []struct {
		name    string
		control func(bi string) *Control
		want    func(p Paths, bi string) string
	}{
		{"no DB.db yet", nil, func(p Paths, _ string) string { return p.Base + ".b1" }},
		{"BI in a directory of its own", func(bi string) *Control { return &Control{Areas: DefaultAreas(Paths{Base: bi[:len(bi)-3]}, 8192)} },
			func(_ Paths, bi string) string { return bi }},
		{"areas past the first read", manyAreas, func(_ Paths, bi string) string { return bi }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			p := Paths{Base: filepath.Join(dir, "db", "x")}
			bi := filepath.Join(dir, "bi", "x.b1")
			if tt.control != nil {
				require.NoError(t, os.MkdirAll(filepath.Dir(p.Base), 0o755))
				require.NoError(t, WriteControl(p, tt.control(bi)))
			}
			assert.Equal(t, tt.want(p, bi), p.SchemaLock())
		})
	}
}
