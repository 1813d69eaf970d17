package openedge

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// DumpFileName is the name a binary dump gives to its file for one section
// (openedge-formats.md §2.3): "<table>.bd" for a PUB table,
// "<owner>_<table>.bd" for any other owner, and "<name>.bd<N>" for section
// N > 1 of a threaded (or split) dump. The table name is used, not its
// DUMP-NAME.
func DumpFileName(owner, table string, section int) string {
	name := table + ".bd"
	if owner != "" && !strings.EqualFold(owner, "PUB") {
		name = owner + "_" + name
	}
	if section > 1 {
		name += strconv.Itoa(section)
	}
	return name
}

// ParseDumplist reads the file written by "dump -dumplist": the dump files
// of one table, one per line. Blank lines and surrounding spaces are
// ignored; a list that names no file is an error, since every dump writes
// at least one.
func ParseDumplist(r io.Reader, name string) ([]string, error) {
	var files []string
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		if f := strings.TrimSpace(sc.Text()); f != "" {
			files = append(files, f)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, line+1, err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: the dump list names no file", name)
	}
	return files, nil
}
