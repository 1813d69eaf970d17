package verify

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCompareSequences(t *testing.T) {
	dict := "0 \"NextCust\" 29167\n1 \"NextOrd\" 103035\n.\nPSC\ncpstream=UTF-8\n.\n0000000043\n"
	tests := []struct {
		name          string
		before, after string
		want          []string
	}{
		{"equal, in another order", "\"NextCust\" 29167\n\"NextOrd\" 103035\n", "\"NextOrd\" 103035\r\n\"NextCust\" 29167\r\n", nil},
		{"oesim's older tab-separated lines", "NextCust\t29167\n", "NextCust\t29167\n", nil},
		// The Data Administration's _seqvals.d (testdata/seqvals in
		// internal/openedge) numbers its lines: read as names, "0 NextCust"
		// was no sequence of dump_seqvals.p's file.
		{"_seqvals.d against dump_seqvals.p's", dict, "\"NextOrd\" 103035\n\"NextCust\" 29167\n", nil},
		{"_seqvals.d, one left at its initial value", dict, "\"NextOrd\" 103035\n\"NextCust\" 0\n", []string{"NextCust 29167 -> 0"}},
		{"left at its initial value", "\"NextCust\" 29167\n\"NextOrd\" 103035\n", "\"NextCust\" 0\n\"NextOrd\" 103035\n", []string{"NextCust 29167 -> 0"}},
		{"missing and extra", "\"a\" 1\n", "\"b\" 2\n", []string{"a 1 -> missing", "b not in the source (2)"}},
		{"names ignore case", "\"NextCust\" 5\n", "\"nextcust\" 5\n", nil},
		{"negative values", "\"down\" -40\n", "\"down\" -40\n", nil},
		{"a name with a space", "\"next cust\" 5\n", "\"Next Cust\" 6\n", []string{"next cust 5 -> 6"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := CompareSequenceFiles("before.d", tt.before, "after.d", tt.after)
			require.NoError(t, err)
			assert.Equal(t, tt.want, r.Differ)
		})
	}
}

// TestCompareSequencesBadFile: a values file that does not parse is an
// error naming it and the line, not a silent "0 compared".
func TestCompareSequencesBadFile(t *testing.T) {
	_, err := CompareSequenceFiles("before.d", "\"a\" 1\n\"b\" x\n", "after.d", "\"a\" 1\n")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "before.d:2:")
	_, err = CompareSequenceFiles("before.d", "\"a\" 1\n", "after.d", "\"a 1\n")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "after.d:1:")
}

func TestSequenceResultFailsTheVerify(t *testing.T) {
	tests := []struct {
		name, after string
		ok          bool
		text        string
	}{
		{"the same values", "\"NextCust\" 29167\n\"NextOrd\" 7\n", true, "sequences: MATCH  2 compared\n"},
		{"one left at its initial value", "\"NextCust\" 0\n\"NextOrd\" 7\n", false, "sequences: MISMATCH  2 compared\n  NextCust 29167 -> 0\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &Result{OK: true}
			seqs, err := CompareSequenceFiles("before", "\"NextCust\" 29167\n\"NextOrd\" 7\n", "after", tt.after)
			require.NoError(t, err)
			r.AddSequences(seqs)
			assert.Equal(t, tt.ok, r.OK)
			if tt.ok {
				assert.NoError(t, r.Err())
			} else {
				assert.EqualError(t, r.Err(), "sequence values differ between the source and the target: NextCust 29167 -> 0")
			}
			var b strings.Builder
			assert.NoError(t, writeSequencesText(&b, r.Sequences))
			assert.Equal(t, tt.text, b.String())
		})
	}
}
