package run

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/journal"
)

func TestParseSourceTask(t *testing.T) {
	tests := []struct {
		name, content string
		want          int64
		ok            bool
	}{
		{"one line", "4711\n", 4711, true},
		{"blanks around", "  12\r\n", 12, true},
		{"empty: the procedure wrote nothing", "", 0, false},
		{"not a number", "?\n", 0, false},
		{"two values", "1\n2\n", 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseSourceTask([]byte(tc.content), SourceTaskFile)
			if !tc.ok {
				var pe *PreconditionError
				assert.True(t, errors.As(err, &pe), "a precondition (exit 3): %v", err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestFrozenSourceTaskIsTheLatestPreflights(t *testing.T) {
	v := func(n int64) *int64 { return &n }
	recs := []journal.Record{
		{Seq: 1, Job: "preflight", State: journal.Done, SourceTask: v(7)},
		{Seq: 2, Job: "dump:PUB.a", State: journal.Done},
		{Seq: 3, Job: "preflight", State: journal.Started},
		{Seq: 4, Job: "preflight", State: journal.Done, SourceTask: v(9)}, // a resume that went on
		{Seq: 5, Job: "preflight", State: journal.Done},                   // one over --online-source
	}
	r, ok := frozenSourceTask(recs)
	require.True(t, ok)
	assert.Equal(t, int64(4), r.Seq)
	assert.Equal(t, int64(9), *r.SourceTask)
	_, ok = frozenSourceTask(recs[1:3])
	assert.False(t, ok, "no preflight read one: nothing to compare")
}
