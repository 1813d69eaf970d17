package verify

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestCompareSequences(t *testing.T) {
	tests := []struct {
		name          string
		before, after string
		want          []string
	}{
		{"equal, in another order", "\"NextCust\" 29167\n\"NextOrd\" 103035\n", "\"NextOrd\" 103035\r\n\"NextCust\" 29167\r\n", nil},
		{"oesim's tab-separated lines", "NextCust\t29167\n", "NextCust\t29167\n", nil},
		{"left at its initial value", "\"NextCust\" 29167\n\"NextOrd\" 103035\n", "\"NextCust\" 0\n\"NextOrd\" 103035\n", []string{"NextCust 29167 -> 0"}},
		{"missing and extra", "\"a\" 1\n", "\"b\" 2\n", []string{"a 1 -> missing", "b not in the source (2)"}},
		{"names ignore case", "\"NextCust\" 5\n", "\"nextcust\" 5\n", nil},
		{"negative values", "\"down\" -40\n", "\"down\" -40\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, CompareSequences(tt.before, tt.after))
		})
	}
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
			r.AddSequences(CompareSequenceFiles("\"NextCust\" 29167\n\"NextOrd\" 7\n", tt.after))
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
