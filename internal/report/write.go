package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
)

// File names written by Write.
const (
	MarkdownFile = "report.md"
	HTMLFile     = "report.html"
)

// Write renders d as dir/report.md and dir/report.html. Each file goes
// through a temporary file and a rename: a reader never sees half a report.
func Write(dir string, d Data) error {
	var md, page bytes.Buffer
	if err := WriteMarkdown(&md, d); err != nil {
		return err
	}
	if err := WriteHTML(&page, d); err != nil {
		return err
	}
	if err := WriteFileAtomic(filepath.Join(dir, MarkdownFile), md.Bytes()); err != nil {
		return err
	}
	return WriteFileAtomic(filepath.Join(dir, HTMLFile), page.Bytes())
}

// WriteFileAtomic writes data to path through a temporary file in the same
// directory, synced and renamed over path.
func WriteFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // after a successful rename this fails harmlessly
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
