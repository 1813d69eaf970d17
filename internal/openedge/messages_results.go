package openedge

import (
	"fmt"
	"strconv"
	"strings"
)

// DumpResult is what a binary dump reports about itself.
type DumpResult struct {
	Records  int64   // "Dumped N records. (13932)"
	Threads  int     // "Binary dump started N threads. (14776)"; 1 when single-threaded
	Brackets []int64 // records per bracket (index = bracket-1) of a threaded dump, from (17816)
}

// LoadResult is what a binary load reports about itself.
type LoadResult struct {
	Records    int64 // "Loaded N records. (15167)"
	CountKnown bool  // the load printed (15167); without it the caller counts some other way
	// Deactivated lists the indexes the load left to rebuild (a load
	// without "build indexes"): the one-word lines under the warning that
	// follows the count, one index per line.
	Deactivated []string
}

// IdxbuildResult is what idxbuild reports about itself.
type IdxbuildResult struct {
	Indexes int // "N indexes were rebuilt. (11465)"
	Errors  int // the count on the closing line that follows (11465)
}

// ParseDumpOutput reads the console output of proutil -C dump. It fails
// when "Binary Dump complete. (6254)" or the record count (13932) is
// missing, whatever the exit code was. Only numbered lines are read: the
// wording is the message file's (PROMSGS), not oedl's.
func ParseDumpOutput(out string) (DumpResult, error) {
	var r DumpResult
	if !HasMessage(out, MsgDumpComplete) {
		return r, missingMarker("dump", MsgDumpComplete, out)
	}
	countFound := false
	var err error
	forEachLine(out, func(n int, line string) bool {
		m, ok := lineMessage(n, line)
		switch {
		case !ok:
		case m.Num == MsgDumpedRecords: // "Dumped 1117 records."
			r.Records, err = m.Count()
			countFound = err == nil
		case m.Num == MsgDumpThreads: // "Binary dump started 2 threads."
			var t int64
			t, err = m.Count()
			r.Threads = int(t)
		case m.Num == MsgDumpBracket: // "222 records for bracket 2."
			err = r.addBracket(m)
		}
		return err == nil
	})
	if err != nil {
		return r, err
	}
	if !countFound {
		return r, fmt.Errorf("dump output has (%d) but no record count (%d)", MsgDumpComplete, MsgDumpedRecords)
	}
	if r.Threads == 0 {
		r.Threads = max(1, len(r.Brackets))
	}
	return r, nil
}

// addBracket reads (17816): the records are the first whole number, the
// bracket the last ("222 records for bracket 2.", in any language).
func (r *DumpResult) addBracket(m Message) error {
	nums := wholeNumbers(m.Text)
	if len(nums) < 2 || nums[len(nums)-1] < 1 || nums[len(nums)-1] > 1<<16 {
		return fmt.Errorf("line %d: malformed bracket message %q", m.Line, m.String())
	}
	n, err := m.Count()
	if err != nil {
		return err
	}
	b := int(nums[len(nums)-1])
	for len(r.Brackets) < b {
		r.Brackets = append(r.Brackets, 0)
	}
	r.Brackets[b-1] += n
	return nil
}

// ParseLoadOutput reads the console output of proutil -C load. It fails when
// "Binary Load complete. (6256)" is missing. The record count is the number
// in (15167) ("Loaded 203 records.", "Carregados 203 registros."): when a
// release does not print it, CountKnown is false and the caller must count
// some other way.
//
// The indexes left to rebuild are found by structure, not by the warning's
// wording: after the count, every line that is one word and carries no
// message number is an index name (ABL names hold no blank; the warning
// heading above them is a sentence).
func ParseLoadOutput(out string) (LoadResult, error) {
	var r LoadResult
	if !HasMessage(out, MsgLoadComplete) {
		return r, missingMarker("load", MsgLoadComplete, out)
	}
	var err error
	forEachLine(out, func(n int, line string) bool {
		m, numbered := lineMessage(n, line)
		switch {
		case numbered && m.Num == MsgLoadedRecords && !r.CountKnown:
			r.Records, err = m.Count()
			r.CountKnown = err == nil
		case numbered && m.Num == MsgLoadComplete:
			return false
		case !numbered && r.CountKnown:
			if f := strings.Fields(line); len(f) == 1 {
				r.Deactivated = append(r.Deactivated, f[0])
			}
		}
		return err == nil
	})
	return r, err
}

// ParseLoadBatchOutput reads the console output of one proutil -C load
// whose -dumplist names the files of n tables, each table's next to each
// other: one result per table, in list order. Each table's part is what a
// load of that table alone prints, so the output is cut after each
// (6256) and every part read as ParseLoadOutput reads a load; the k-th
// (15167) is the k-th table's count. Nothing is matched by table name or
// wording. Fewer or more than n parts is an error: the caller cannot tell
// which table a count belongs to.
func ParseLoadBatchOutput(out string, n int) ([]LoadResult, error) {
	var parts []string
	part, rest := 0, out // part: where the current table's output begins
	for rest != "" {
		line, after, _ := strings.Cut(rest, "\n")
		end := len(out) - len(after)
		if m, ok := lineMessage(0, strings.TrimSuffix(line, "\r")); ok && m.Num == MsgLoadComplete {
			parts = append(parts, out[part:end])
			part = end
		}
		rest = after
	}
	if len(parts) != n {
		return nil, fmt.Errorf("a load of %d tables printed (%d) %d times", n, MsgLoadComplete, len(parts))
	}
	res := make([]LoadResult, n)
	for i, p := range parts {
		r, err := ParseLoadOutput(p)
		if err != nil {
			return nil, fmt.Errorf("table %d of %d in the load: %w", i+1, n, err)
		}
		res[i] = r
	}
	return res, nil
}

// ParseIdxbuildOutput reads the console output of proutil -C idxbuild. It
// needs "N indexes were rebuilt. (11465)" and the error count of the
// closing line, and fails when the count is not 0; the result is filled in
// either way so that the caller can report the numbers.
//
// The closing line has no message number ("Index rebuild complete. 0
// error(s) encountered.", "Recompilação de índice concluída.  0 erro(s)
// encontrado(s).Tempo decorrido:219.609"), so it is found by position: it
// is the first non-empty line after (11465), and the count is its first
// whole number. A release that printed something else there would be
// refused, never read as 0 errors.
func ParseIdxbuildOutput(out string) (IdxbuildResult, error) {
	var r IdxbuildResult
	m, ok := FindMessage(out, MsgIndexesRebuilt)
	if !ok {
		return r, missingMarker("idxbuild", MsgIndexesRebuilt, out)
	}
	n, err := m.Count()
	if err != nil {
		return r, err
	}
	r.Indexes = int(n)
	closing, line := "", 0
	forEachLine(out, func(n int, l string) bool {
		if n <= m.Line || strings.TrimSpace(l) == "" {
			return true
		}
		closing, line = l, n
		return false
	})
	if closing == "" {
		return r, fmt.Errorf("idxbuild output has (%d) but no closing line with the error count after it", MsgIndexesRebuilt)
	}
	if _, numbered := lineMessage(line, closing); numbered {
		return r, fmt.Errorf("line %d: idxbuild's closing line after (%d) is a numbered message, not the error count: %q", line, MsgIndexesRebuilt, strings.TrimSpace(closing))
	}
	nums := wholeNumbers(closing)
	if len(nums) == 0 {
		return r, fmt.Errorf("line %d: idxbuild's closing line after (%d) has no error count: %q", line, MsgIndexesRebuilt, strings.TrimSpace(closing))
	}
	r.Errors = int(nums[0])
	if r.Errors != 0 {
		return r, fmt.Errorf("idxbuild rebuilt %d indexes with %d error(s)", r.Indexes, r.Errors)
	}
	return r, nil
}

// Count is the first whole number in a message's text: the count of
// (13932), (15167), (17816), (11465), in any language. Real output prints
// counts without separators in every language seen ("Carregados 26153086
// registros. (15167)" on a Brazilian install, docs/decisions.md
// "(real-lang)"); a count written in digit groups ("1 234 567",
// "1.234.567", "1,234,567") is read whole all the same: these messages
// count records, which are whole, so the groups are unambiguous, and read
// by its first group the count was a thousand or a million times too small.
// A first group starting with 0 is not a count's ("0.413" is a time).
func (m Message) Count() (int64, error) {
	f := strings.Fields(m.Text)
	for i, w := range f {
		w = strings.TrimRight(w, ".:,")
		if w == "" || w[0] < '0' || w[0] > '9' {
			continue
		}
		if !allDigits(w) && digitGroups(w) {
			// "1.234.567", "1,234,567", "1'234'567": one count, its separators cut.
			w = strings.Map(func(r rune) rune {
				if r >= '0' && r <= '9' {
					return r
				}
				return -1
			}, w)
		} else if allDigits(w) && len(w) <= 3 && w[0] != '0' {
			// "1 234 567" (blanks or no-break spaces, which Fields splits at).
			for i+1 < len(f) && digitGroup(f[i+1]) {
				w += strings.TrimRight(f[i+1], ".:,")
				i++
			}
		}
		if !allDigits(w) || len(w) > 18 {
			continue
		}
		if n, err := strconv.ParseInt(w, 10, 64); err == nil {
			return n, nil
		}
	}
	return 0, fmt.Errorf("line %d: no number in %q", m.Line, m.String())
}

// digitGroups reports whether w is a number in thousands groups: one to
// three digits, the first not 0 ("0.413" is a time), then groups of three
// each after one '.', ',' or '\”.
func digitGroups(w string) bool {
	head, rest := w, ""
	if i := strings.IndexAny(w, ".,'"); i > 0 {
		head, rest = w[:i], w[i:]
	}
	if len(head) > 3 || head[0] == '0' || !allDigits(head) || rest == "" {
		return false
	}
	for rest != "" {
		if len(rest) < 4 || !strings.ContainsRune(".,'", rune(rest[0])) || !allDigits(rest[1:4]) {
			return false
		}
		rest = rest[4:]
	}
	return true
}

// digitGroup reports whether the field after a number is a group of three
// digits that continues it ("1 234 567" split at its blanks), a trailing
// "." or "," of the sentence cut.
func digitGroup(w string) bool {
	w = strings.TrimRight(w, ".:,")
	return len(w) == 3 && allDigits(w)
}

// wholeNumbers are the fields of s that are whole numbers once a trailing
// "." or ":" is cut ("203", "2." and "area 8 :" count; "0.413", "12K",
// "(11465)" and "219.609" do not).
func wholeNumbers(s string) []int64 {
	var out []int64
	for _, f := range strings.Fields(s) {
		f = strings.TrimRight(f, ".:,")
		if !allDigits(f) || len(f) > 18 {
			continue
		}
		if n, err := strconv.ParseInt(f, 10, 64); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// BrokerPID is the process ID of the broker proserve started: the last
// whole number of its (5644) line ("Started for 20931 using TCP IPV4
// address 0.0.0.0, pid 4123."), in any language. False when out has no
// (5644) or it ends with no number.
func BrokerPID(out string) (int, bool) {
	m, ok := FindMessage(out, MsgBrokerStarted)
	if !ok {
		return 0, false
	}
	f := strings.Fields(m.Text)
	for i := len(f) - 1; i >= 0; i-- {
		w := strings.TrimRight(f[i], ".,")
		if allDigits(w) {
			pid, err := strconv.Atoi(w)
			return pid, err == nil && pid > 0
		}
	}
	return 0, false
}
