package verify

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// CompareSequences compares two sequence-value files written by the same
// program (dump_seqvals.p: one line per sequence, its name then its
// current value, as EXPORT writes them, `"name" 1000`) and returns one
// "name before -> after" per sequence that differs, sorted by name; a
// sequence on one side only is "missing" or "not in the source". The
// lines are compared as words, so the file's own quoting needs no parser:
// both sides have it.
func CompareSequences(before, after string) []string {
	b, a := sequenceValues(before), sequenceValues(after)
	var out []string
	for key, v := range b {
		w, ok := a[key]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s %s -> missing", v.name, v.value))
		case w.value != v.value:
			out = append(out, fmt.Sprintf("%s %s -> %s", v.name, v.value, w.value))
		}
	}
	for key, w := range a {
		if _, ok := b[key]; !ok {
			out = append(out, fmt.Sprintf("%s not in the source (%s)", w.name, w.value))
		}
	}
	sort.Strings(out)
	return out
}

// SequenceResult is the sequence values compared by a run's verify: how
// many the source has, and each that differs (CompareSequences).
type SequenceResult struct {
	Compared int      `json:"compared"`
	Differ   []string `json:"differ,omitempty"`
}

// CompareSequenceFiles is CompareSequences with the count of the source's
// sequences, for verify.json and the run's summary.
func CompareSequenceFiles(before, after string) *SequenceResult {
	return &SequenceResult{Compared: len(sequenceValues(before)), Differ: CompareSequences(before, after)}
}

// AddSequences records the sequence values compared; one that differs
// fails the result.
func (r *Result) AddSequences(s *SequenceResult) {
	r.Sequences = s
	if s != nil && len(s.Differ) > 0 {
		r.OK = false
	}
}

// Err is the sequences that differ, or nil.
func (s *SequenceResult) Err() error {
	if s == nil || len(s.Differ) == 0 {
		return nil
	}
	return fmt.Errorf("sequence values differ between the source and the target: %s", strings.Join(s.Differ, "; "))
}

// writeSequencesText prints the sequences line and each that differs.
func writeSequencesText(w io.Writer, s *SequenceResult) error {
	if s == nil {
		return nil
	}
	verdict := "MATCH"
	if len(s.Differ) > 0 {
		verdict = "MISMATCH"
	}
	if _, err := fmt.Fprintf(w, "sequences: %s  %d compared\n", verdict, s.Compared); err != nil {
		return err
	}
	for _, d := range s.Differ {
		if _, err := fmt.Fprintf(w, "  %s\n", d); err != nil {
			return err
		}
	}
	return nil
}

type sequenceValue struct{ name, value string }

// sequenceValues maps each line's name, in lower case (ABL names ignore
// case), to the name as written (quotes taken off) and its value: the
// last word is the value, the words before it the name.
func sequenceValues(text string) map[string]sequenceValue {
	vals := map[string]sequenceValue{}
	for _, line := range strings.Split(text, "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		name := strings.Trim(strings.Join(f[:len(f)-1], " "), `"`)
		vals[strings.ToLower(name)] = sequenceValue{name, f[len(f)-1]}
	}
	return vals
}
