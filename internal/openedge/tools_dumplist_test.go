package openedge

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDumpFileName(t *testing.T) {
	tests := []struct {
		owner, table string
		section      int
		want         string
	}{
		{"PUB", "customer", 1, "customer.bd"},
		{"", "customer", 0, "customer.bd"},
		{"pub", "customer", 2, "customer.bd2"},
		{"sqlusr", "order", 1, "sqlusr_order.bd"},
		{"sqlusr", "order", 12, "sqlusr_order.bd12"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, DumpFileName(tt.owner, tt.table, tt.section))
	}
}

func TestParseDumplist(t *testing.T) {
	got, err := ParseDumplist(strings.NewReader("/dump/customer.bd\n\n  /dump/customer.bd2 \r\n"), "c.lst")
	require.NoError(t, err)
	assert.Equal(t, []string{"/dump/customer.bd", "/dump/customer.bd2"}, got)

	_, err = ParseDumplist(strings.NewReader("\n \n"), "empty.lst")
	assert.EqualError(t, err, "empty.lst: the dump list names no file")
	_, err = ParseDumplist(strings.NewReader(strings.Repeat("x", 70000)), "long.lst")
	assert.ErrorContains(t, err, "long.lst:1: bufio.Scanner: token too long")
}

// FuzzParseDumplist: no panic; names are trimmed and never empty.
func FuzzParseDumplist(f *testing.F) {
	f.Add("/dump/customer.bd\n/dump/customer.bd2\n")
	f.Add("\r\n\t\n")
	f.Fuzz(func(t *testing.T, in string) {
		files, err := ParseDumplist(strings.NewReader(in), "fuzz")
		if err != nil {
			require.Nil(t, files)
			return
		}
		require.NotEmpty(t, files)
		for _, f := range files {
			require.NotEmpty(t, f)
			require.Equal(t, strings.TrimSpace(f), f)
		}
	})
}
