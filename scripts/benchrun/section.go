package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// writeSection replaces the part of the Markdown file path between
// "<!-- name -->" and "<!-- /name -->" with text (appending it when the
// file has no such part), so that the run benchmark and the comparison
// share docs/benchmarks/run.md without erasing each other's figures.
func writeSection(path, name, text string) error {
	open, close := "<!-- "+name+" -->\n", "<!-- /"+name+" -->\n"
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	s, block := string(old), open+text+close
	i, j := strings.Index(s, open), strings.Index(s, close)
	switch {
	case i >= 0 && j > i:
		s = s[:i] + block + s[j+len(close):]
	case s == "":
		s = block
	default:
		s = strings.TrimRight(s, "\n") + "\n\n" + block
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(s), 0o644)
}
