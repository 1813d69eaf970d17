package openedge

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Sequence values files, in the two layouts ABL EXPORT gives them:
//
//	"NextCustNum" 2101                  oedl's dump_seqvals.p (internal/run/abl):
//	"NextOrdNum" 6070                   EXPORT _Seq-Name DYNAMIC-CURRENT-VALUE(...)
//
//	0 "NextCustNum" 2101                the Data Administration's _seqvals.d
//	1 "NextOrdNum" 6070                 (prodict/dump/_dmpseqs.p: EXPORT _Seq-Num
//	.                                   "_Seq-Name" CURRENT-VALUE(...), then the
//	PSC                                 dmptrail.i trailer of cpstream= alone)
//	cpstream=ISO8859-1
//	.
//	0000000037
//
// and oesim's before lefts29, "name<TAB>value", which a work directory of an
// older run may still hold. The name is EXPORT-quoted (a quote doubled);
// the value an integer (64-bit sequences, OpenEdge 10.1B on).

// SeqValue is one sequence's current value.
type SeqValue struct {
	Num   int // _Seq-Num; -1 when the layout has none
	Name  string
	Value int64
	Line  int // in the file, for a message about it
}

// ParseSeqvals reads a sequence values file in either layout. A line of
// another width, a file mixing the layouts, a value or number that is not
// an integer is an error naming the file and line.
func ParseSeqvals(r io.Reader, name string) ([]SeqValue, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	d, err := parseDFile(bytes.NewReader(data), name, func(n int) error {
		if n != 2 && n != 3 {
			return fmt.Errorf("%d fields, want \"name\" value or number \"name\" value", n)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	lines := recordLines(string(data), len(d.Records))
	if len(lines) < len(d.Records) {
		// The records' reader split a line the line count calls blank
		// (a vertical tab alone, found by fuzzing): no sequence file.
		return nil, fmt.Errorf("%s: %d records on %d non-blank lines: not a sequence values file", name, len(d.Records), len(lines))
	}
	out := make([]SeqValue, 0, len(d.Records))
	for i, rec := range d.Records {
		if len(rec) != len(d.Records[0]) {
			return nil, fmt.Errorf("%s:%d: %d fields where line %d has %d: two layouts in one file", name, lines[i], len(rec), lines[0], len(d.Records[0]))
		}
		v := SeqValue{Num: -1, Line: lines[i]}
		if len(rec) == 3 {
			n, err := strconv.Atoi(rec[0])
			if err != nil {
				return nil, fmt.Errorf("%s:%d: sequence number %q is not an integer", name, lines[i], rec[0])
			}
			v.Num, rec = n, rec[1:]
		}
		v.Name = rec[0]
		if v.Value, err = strconv.ParseInt(rec[1], 10, 64); err != nil || v.Name == Unknown {
			return nil, fmt.Errorf("%s:%d: %q is not a sequence name and its integer value", name, lines[i], strings.Join(rec, " "))
		}
		out = append(out, v)
	}
	return out, nil
}

// recordLines is the line number of each of the first n records of a
// sequence values file: its non-blank lines (a sequence name holds no
// newline).
func recordLines(text string, n int) []int {
	lines := make([]int, 0, n)
	for i, l := range strings.Split(text, "\n") {
		if len(lines) == n {
			break
		}
		if strings.TrimSpace(l) != "" {
			lines = append(lines, i+1)
		}
	}
	return lines
}

// AppendSeqval appends v as oedl's dump_seqvals.p EXPORTs it: the name
// quoted (a quote doubled), a space, the value.
func AppendSeqval(b []byte, name string, value int64) []byte {
	b = append(b, '"')
	b = append(b, strings.ReplaceAll(name, `"`, `""`)...)
	b = append(b, `" `...)
	b = strconv.AppendInt(b, value, 10)
	return append(b, '\n')
}
