package verify

import (
	"fmt"
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
