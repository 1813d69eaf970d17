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
	Records    int64
	CountKnown bool // the load printed "N records loaded"; no release is known to for sure
	// Deactivated lists what follows "YOU SHOULD REBUILD THE FOLLOWING
	// INDEXES" (a load without "build indexes"), one entry per line.
	Deactivated []string
}

// IdxbuildResult is what idxbuild reports about itself.
type IdxbuildResult struct {
	Indexes int // "N indexes were rebuilt. (11465)"
	Errors  int // "Index rebuild complete. N error(s) encountered."
}

// ParseDumpOutput reads the console output of proutil -C dump. It fails
// when "Binary Dump complete. (6254)" or the record count is missing,
// whatever the exit code was.
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
		case ok && m.Num == MsgDumpedRecords: // "Dumped 1117 records."
			r.Records, err = firstInt(m)
			countFound = err == nil
		case ok && m.Num == MsgDumpThreads: // "Binary dump started 2 threads."
			var t int64
			t, err = firstInt(m)
			r.Threads = int(t)
		case ok && m.Num == MsgDumpBracket: // "222 records for bracket 2."
			err = r.addBracket(m)
		case !ok && !countFound: // 10.x, [MEM]: "1117 records dumped."
			if f := strings.Fields(line); len(f) == 3 && f[1] == "records" && f[2] == "dumped." {
				r.Records, err = strconv.ParseInt(f[0], 10, 64)
				countFound = err == nil
			}
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

func (r *DumpResult) addBracket(m Message) error {
	f := strings.Fields(m.Text)
	if len(f) < 5 || f[1] != "records" {
		return fmt.Errorf("line %d: malformed bracket message %q", m.Line, m.String())
	}
	n, err1 := strconv.ParseInt(f[0], 10, 64)
	b, err2 := strconv.Atoi(strings.TrimSuffix(f[len(f)-1], "."))
	if err1 != nil || err2 != nil || b < 1 || b > 1<<16 {
		return fmt.Errorf("line %d: malformed bracket message %q", m.Line, m.String())
	}
	for len(r.Brackets) < b {
		r.Brackets = append(r.Brackets, 0)
	}
	r.Brackets[b-1] += n
	return nil
}

// ParseLoadOutput reads the console output of proutil -C load. It fails when
// "Binary Load complete. (6256)" is missing. The record count is taken from
// "N records loaded" when the release prints it (CountKnown), and the
// caller must count some other way when it does not.
func ParseLoadOutput(out string) (LoadResult, error) {
	var r LoadResult
	if !HasMessage(out, MsgLoadComplete) {
		return r, missingMarker("load", MsgLoadComplete, out)
	}
	inRebuildList := false
	var err error
	forEachLine(out, func(n int, line string) bool {
		text := strings.TrimSpace(line)
		_, numbered := lineMessage(n, line)
		if inRebuildList {
			if text == "" || numbered {
				inRebuildList = false
			} else {
				r.Deactivated = append(r.Deactivated, text)
				return true
			}
		}
		if strings.Contains(strings.ToUpper(text), "YOU SHOULD REBUILD THE FOLLOWING INDEXES") {
			inRebuildList = true
			return true
		}
		if i := strings.Index(text, " records loaded"); i > 0 && !r.CountKnown {
			f := strings.Fields(text[:i])
			r.Records, err = strconv.ParseInt(f[len(f)-1], 10, 64)
			if err != nil {
				err = fmt.Errorf("line %d: malformed record count in %q", n, text)
			}
			r.CountKnown = err == nil
		}
		return err == nil
	})
	return r, err
}

// ParseIdxbuildOutput reads the console output of proutil -C idxbuild. It
// needs both "N indexes were rebuilt. (11465)" and the "N error(s)" count of
// the closing line, and fails when the count is not 0; the result is filled
// in either way so that the caller can report the numbers.
func ParseIdxbuildOutput(out string) (IdxbuildResult, error) {
	var r IdxbuildResult
	m, ok := FindMessage(out, MsgIndexesRebuilt)
	if !ok {
		return r, missingMarker("idxbuild", MsgIndexesRebuilt, out)
	}
	n, err := firstInt(m)
	if err != nil {
		return r, err
	}
	r.Indexes = int(n)
	errorsFound := false
	forEachLine(out, func(n int, line string) bool {
		i := strings.Index(line, " error(s)")
		if i < 0 {
			return true
		}
		f := strings.Fields(line[:i])
		if len(f) == 0 {
			return true
		}
		e, perr := strconv.Atoi(f[len(f)-1])
		if perr != nil {
			return true
		}
		r.Errors, errorsFound = e, true
		return false
	})
	if !errorsFound {
		return r, fmt.Errorf("idxbuild output has (%d) but no \"N error(s)\" count", MsgIndexesRebuilt)
	}
	if r.Errors != 0 {
		return r, fmt.Errorf("idxbuild rebuilt %d indexes with %d error(s)", r.Indexes, r.Errors)
	}
	return r, nil
}

// firstInt is the first whole number in a message's text.
func firstInt(m Message) (int64, error) {
	for _, f := range strings.Fields(m.Text) {
		if n, err := strconv.ParseInt(strings.TrimSuffix(f, "."), 10, 64); err == nil {
			return n, nil
		}
	}
	return 0, fmt.Errorf("line %d: no number in %q", m.Line, m.String())
}
