package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/run"
	"github.com/oedl/oedl/internal/verify"
)

// VerifyOptions are the flags of `oedl verify`.
type VerifyOptions struct {
	IO     *IOStreams
	Before string
	After  string
	Out    string // directory for verify.json and the counts lists ("" = none)
	JSON   bool
	// BeforeSeqs, AfterSeqs: sequence-value dumps of the two databases
	// (oedl's sequences.d or the Data Dictionary's _seqvals.d), compared
	// as the run compares its own; both or neither.
	BeforeSeqs, AfterSeqs string
}

// NewCmdVerify builds `oedl verify`.
func NewCmdVerify(io *IOStreams) *cobra.Command {
	opts := &VerifyOptions{IO: io}
	cmd := &cobra.Command{
		Use:   "verify --before FILE --after FILE",
		Short: "Compare two tabanalys reports table by table",
		Long: `Verify compares the record counts of two tabanalys (or dbanalys) reports, the
source before and the target after a dump/load, table by table: tables missing
after, tables that were not there before, and counts that differ. Meta-schema
(_File, ...) and SQL catalog (SYSPROGRESS) tables are left out.

It also prints, for each side, the SHA-256 of its "owner.table records" list
(sorted): equal checksums at a glance, as DBAs compare the sum of .tbx files.
With -o DIR the lists and verify.json are written there, so sha256sum of the
lists shows the very same checksums.

A tabanalys holds no sequence. To compare the sequence values as oedl run
does, give both --before-seqs and --after-seqs: the Data Dictionary's
_seqvals.d of each database (Admin > Dump Data and Definitions > Sequences
Current Values) or oedl's WORK/sequences.d and sequences.target.d. A
sequence whose value differs, or that one side lacks, is a mismatch.

A report made while the database was in use carries message (2486): its
counts are approximations, and verify says so on stderr. Except oedl's own
baseline (WORK/source.tba): the run counted the frozen source under the
broker it started for its dumps, and its journal beside the report says so.

EXIT STATUS
  0 every table matches; 1 mismatches (named on stderr); 2 unreadable or
  malformed report, or one that proves nothing: no application table, or
  table rows that do not add up to their area's summary (rows it could not
  read as tables), or one analysis twice (the same file, or the same
  database with the same Date: in both headers).`,
		Example: `  oedl verify --before work/source.tba --after work/target.tba
  oedl verify --before prod.tba --after new.tba --json | jq .mismatches
  oedl verify --before prod.tba --after new.tba --before-seqs prod/_seqvals.d --after-seqs new/_seqvals.d`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error { return verifyRun(c.Context(), opts) },
	}
	f := cmd.Flags()
	f.StringVar(&opts.Before, "before", "", "tabanalys report of the source")
	f.StringVar(&opts.After, "after", "", "tabanalys report of the target")
	f.StringVarP(&opts.Out, "out", "o", "", "write verify.json and the two counts lists into this directory")
	f.BoolVar(&opts.JSON, "json", false, "the result as JSON on stdout")
	f.StringVar(&opts.BeforeSeqs, "before-seqs", "", "sequence values of the source (_seqvals.d, or oedl's sequences.d); with --after-seqs")
	f.StringVar(&opts.AfterSeqs, "after-seqs", "", "sequence values of the target (_seqvals.d, or oedl's sequences.target.d); with --before-seqs")
	return cmd
}

func verifyRun(_ context.Context, opts *VerifyOptions) error {
	if opts.Before == "" || opts.After == "" {
		return UsageError("give both --before FILE and --after FILE")
	}
	if (opts.BeforeSeqs == "") != (opts.AfterSeqs == "") {
		return UsageError("give both --before-seqs FILE and --after-seqs FILE, or neither: one side's sequence values compare with nothing")
	}
	if opts.Out != "" {
		if err := checkOutputDir("-o", opts.Out); err != nil {
			return err
		}
		// The three files are replaced whole: only ones oedl wrote (an
		// earlier verify, a run's own), never someone's verify.json.
		for name, ours := range map[string]func([]byte) bool{
			verify.JSONFile: oedlVerify, verify.BeforeList: oedlCounts, verify.AfterList: oedlCounts,
		} {
			if err := checkOutputFile("-o", filepath.Join(opts.Out, name), ours); err != nil {
				return err
			}
		}
	}
	before, err := readReport(opts.Before)
	if err != nil {
		return err
	}
	after, err := readReport(opts.After)
	if err != nil {
		return err
	}
	for _, r := range []struct {
		a    *openedge.Analysis
		file string
	}{{before, opts.Before}, {after, opts.After}} {
		if err := verify.Readable(r.a, r.file); err != nil {
			return UsageError("%v", err)
		}
		if r.a.InUse {
			if seq, ok := run.FrozenBaseline(r.file); ok {
				fmt.Fprintf(opts.IO.ErrOut, "note: %s carries (%d) from the broker oedl's run started for its own dumps; the run took it of the frozen source (%s, record %d), so its counts are exact\n",
					r.file, openedge.MsgOnlineAnalysis, journal.FileName, seq)
				continue
			}
			fmt.Fprintf(opts.IO.ErrOut, "warning: %s was made while the database was in use (%d): its counts are approximations, and so is this comparison\n",
				r.file, openedge.MsgOnlineAnalysis)
		}
	}
	if err := verify.Distinct(before, after, opts.Before, opts.After); err != nil {
		return UsageError("%v", err)
	}
	if before.Database != "" && before.Database == after.Database {
		// Right when the target was made at the source's path; else the
		// after report is the source's again, and MATCH proves nothing.
		fmt.Fprintf(opts.IO.ErrOut, "note: both reports are of the database %s: the target must have been made at the source's path, or %s is the source's again\n",
			before.Database, opts.After)
	}
	res := verify.Compare(verify.NewSide(before, opts.Before), verify.NewSide(after, opts.After))
	if opts.BeforeSeqs != "" {
		seqs, err := compareSequenceFiles(opts.BeforeSeqs, opts.AfterSeqs)
		if err != nil {
			return err
		}
		res.AddSequences(seqs)
	}
	if opts.Out != "" {
		if err := os.MkdirAll(opts.Out, 0o755); err != nil {
			return FailedError(err)
		}
		if err := verify.Write(opts.Out, res); err != nil {
			return FailedError(err)
		}
	}
	if opts.JSON {
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return err
		}
	} else if err := verify.WriteText(opts.IO.Out, res); err != nil {
		return err
	}
	if err := res.Err(); err != nil {
		return FailedError(err)
	}
	return nil
}

// compareSequenceFiles reads the two sequence-value dumps (exit 2 naming
// the file and line of one that is not) and compares them.
func compareSequenceFiles(before, after string) (*verify.SequenceResult, error) {
	if bi, berr := os.Stat(before); berr == nil {
		if ai, aerr := os.Stat(after); aerr == nil && os.SameFile(bi, ai) {
			return nil, UsageError("--before-seqs and --after-seqs are the same file (%s): that proves nothing", before)
		}
	}
	var text [2]string
	for i, f := range []string{before, after} {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, UsageError("%v", err)
		}
		text[i] = string(b)
	}
	res, err := verify.CompareSequenceFiles(before, text[0], after, text[1])
	if err != nil {
		return nil, UsageError("%v", err) // openedge.ParseSeqvals names the file and line
	}
	return res, nil
}

// readReport reads a report or -csoutput file exactly as `oedl plan` does.
func readReport(path string) (*openedge.Analysis, error) { return readAnalysis(path) }
