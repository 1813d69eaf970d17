package verify

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"text/tabwriter"

	"github.com/oedl/oedl/internal/atomicfile"
	"github.com/oedl/oedl/internal/units"
)

// File names written by Write.
const (
	JSONFile   = "verify.json"
	BeforeList = "before.counts.txt"
	AfterList  = "after.counts.txt"
)

// Write saves verify.json and the two counts lists in dir, each through a
// temporary file and a rename, so a crash never leaves half a verdict.
func Write(dir string, r *Result) error {
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	for name, data := range map[string][]byte{
		BeforeList: []byte(r.Before.List()),
		AfterList:  []byte(r.After.List()),
		JSONFile:   append(js, '\n'),
	} {
		if err := atomicfile.WriteFile(filepath.Join(dir, name), data); err != nil {
			return err
		}
	}
	return nil
}

// WriteText prints the verdict for a person: the two checksums first (the
// line to read off), then every table that does not match.
func WriteText(w io.Writer, r *Result) error {
	verdict := "MATCH"
	if !r.OK {
		verdict = "MISMATCH"
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "verify:\t%s\t%s tables, %s records before, %s after\n", verdict, units.Thousands(int64(len(r.Rows))), units.Thousands(r.Before.Records), units.Thousands(r.After.Records))
	fmt.Fprintf(tw, "before:\tsha256 %s\t%d tables  %s\n", r.Before.ShortSum(), len(r.Before.Tables), r.Before.File)
	fmt.Fprintf(tw, "after:\tsha256 %s\t%d tables  %s\n", r.After.ShortSum(), len(r.After.Tables), r.After.File)
	if err := tw.Flush(); err != nil {
		return err
	}
	if r.Note != "" {
		// Why the verdict and the checksums above it seem to disagree.
		fmt.Fprintf(w, "note:    %s\n", r.Note)
	}
	if err := writeSecurityText(w, r.Security); err != nil {
		return err
	}
	if err := writeSequencesText(w, r.Sequences); err != nil {
		return err
	}
	if len(r.Bad) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "table\tbefore\tafter\tstatus\t\n")
	for _, b := range r.Bad {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%s\t\n", b.Table, b.Before, b.After, b.Status)
	}
	return tw.Flush()
}
