package openedge

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestDumpFileBase(t *testing.T) {
	tests := []struct{ owner, name, want string }{
		{"PUB", "customer", "customer"},
		{"pub", "Order-Line", "Order-Line"},
		{"", "customer", "customer"},
		{"sales", "customer", "sales_customer"},
		{"PUB", "../../etc/passwd", ".._.._etc_passwd"},
		{"PUB", "a/b", "a_b"},
		{"PUB", "..", ".."},
		{"x/y", "t", "x_y_t"},
		{"PUB", "nul\x00byte", "nul_byte"},
	}
	for _, tt := range tests {
		got := DumpFileBase(tt.owner, tt.name)
		assert.Equal(t, tt.want, got, "%s.%s", tt.owner, tt.name)
		dir := "/work/dump"
		for _, suffix := range []string{".bd", ".bd2", ".b2.bd"} {
			p := filepath.Join(dir, got+suffix)
			assert.Equal(t, dir, filepath.Dir(p), "%s.%s%s lands outside its directory", tt.owner, tt.name, suffix)
		}
	}
}
