package report

import (
	"bytes"
	"path/filepath"

	"github.com/oedl/oedl/internal/atomicfile"
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
	if err := atomicfile.WriteFile(filepath.Join(dir, MarkdownFile), md.Bytes()); err != nil {
		return err
	}
	return atomicfile.WriteFile(filepath.Join(dir, HTMLFile), page.Bytes())
}
