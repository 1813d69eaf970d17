package openedge

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFindTable(t *testing.T) {
	a := parseFixture(t, "testdata/analysis/partitions_11.7.tabanalys")
	rows := a.FindTable("pub", "CUST-LIST")
	assert.Len(t, rows, 2, "both partitions")
	n, ok := a.RecordCount("", "cust-list")
	assert.True(t, ok)
	assert.Equal(t, int64(3), n)

	n, ok = a.RecordCount("PUB", "stock")
	assert.True(t, ok)
	assert.Equal(t, int64(50000), n)

	_, ok = a.RecordCount("PUB", "nope")
	assert.False(t, ok)
	_, ok = a.RecordCount("sqlusr", "cust")
	assert.False(t, ok, "owner matters")
	n, ok = sampleAnalysis().RecordCount("SQLUSR", "empty")
	assert.True(t, ok, "a table with no records is still there")
	assert.Zero(t, n)
}
