package verify

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/oedl/oedl/internal/openedge"
)

// CompareSequences compares two sequence values files (openedge.ParseSeqvals:
// oedl's dump_seqvals.p writes `"name" 1000`, the Data Administration's
// _seqvals.d `0 "name" 1000`; either may be on either side) and returns
// one "name before -> after" per sequence that differs, sorted by name; a
// sequence on one side only is "missing" or "not in the source". Names
// are compared ignoring case, as ABL does; sequence numbers are not
// compared (a .df loaded in another order numbers them otherwise).
func CompareSequences(before, after []openedge.SeqValue) []string {
	b, a := byName(before), byName(after)
	var out []string
	for key, v := range b {
		w, ok := a[key]
		switch {
		case !ok:
			out = append(out, fmt.Sprintf("%s %d -> missing", v.Name, v.Value))
		case w.Value != v.Value:
			out = append(out, fmt.Sprintf("%s %d -> %d", v.Name, v.Value, w.Value))
		}
	}
	for key, w := range a {
		if _, ok := b[key]; !ok {
			out = append(out, fmt.Sprintf("%s not in the source (%d)", w.Name, w.Value))
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

// CompareSequenceFiles reads the source's and the target's sequence
// values files (named for the error of a file that does not parse) and
// compares them: how many the source has, and each that differs.
func CompareSequenceFiles(beforeName, before, afterName, after string) (*SequenceResult, error) {
	b, err := openedge.ParseSeqvals(strings.NewReader(before), beforeName)
	if err != nil {
		return nil, err
	}
	a, err := openedge.ParseSeqvals(strings.NewReader(after), afterName)
	if err != nil {
		return nil, err
	}
	return &SequenceResult{Compared: len(b), Differ: CompareSequences(b, a)}, nil
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

// byName maps each sequence's name, in lower case (ABL names ignore
// case), to its value.
func byName(vals []openedge.SeqValue) map[string]openedge.SeqValue {
	m := make(map[string]openedge.SeqValue, len(vals))
	for _, v := range vals {
		m[strings.ToLower(v.Name)] = v
	}
	return m
}
