package journal

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

// Read returns the records of the journal at path. A torn last line (a crash
// in the middle of an append) is ignored; any other line that is not a
// record is an error naming the file and the line. Read never writes, so it
// is safe while a run appends to the same file.
func Read(path string) ([]Record, error) {
	recs, _, err := readFile(path)
	return recs, err
}

// Parse reads records from r; name is used in error messages.
func Parse(r io.Reader, name string) ([]Record, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	recs, _, err := parse(data, name)
	return recs, err
}

func readFile(path string) ([]Record, int64, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, err
	}
	return parse(data, path)
}

// parse returns the records and the length of the prefix made of whole,
// valid lines (where the next append must go).
func parse(data []byte, name string) ([]Record, int64, error) {
	var recs []Record
	var good int64
	lineNo := 0
	for len(data) > 0 {
		lineNo++
		nl := bytes.IndexByte(data, '\n')
		last := nl < 0
		line := data
		if !last {
			line = data[:nl]
		}
		if last {
			// No newline: Append never returned for this line, so nothing
			// was claimed on its strength. Drop it, valid JSON or not;
			// Open cuts it off before appending.
			return recs, good, nil
		}
		var r Record
		err := json.Unmarshal(line, &r)
		if err == nil && (r.Job == "" || r.State == "") {
			err = fmt.Errorf("record without job or state")
		}
		if err != nil {
			// Only the final line can be torn. A filesystem may also
			// leave a complete-length line of zeros after a crash
			// (metadata written before data): still the last line.
			if isLastLine(data[nl+1:]) {
				return recs, good, nil
			}
			return nil, good, fmt.Errorf("%s:%d: corrupt journal line (%v); the run cannot be resumed safely from a damaged journal", name, lineNo, err)
		}
		if len(recs) > 0 && r.Seq <= recs[len(recs)-1].Seq {
			return nil, good, fmt.Errorf("%s:%d: sequence %d after %d: records out of order", name, lineNo, r.Seq, recs[len(recs)-1].Seq)
		}
		recs = append(recs, r)
		good += int64(nl + 1)
		data = data[nl+1:]
	}
	return recs, good, nil
}

// isLastLine reports whether rest holds nothing but whitespace.
func isLastLine(rest []byte) bool { return len(bytes.TrimSpace(rest)) == 0 }
