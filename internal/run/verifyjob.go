package run

import (
	"fmt"
	"os"

	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/units"
	"github.com/oedl/oedl/internal/verify"
)

// verifyJob compares the source's tabanalys (the baseline taken before the
// dumps) with the target's, table by table, and writes verify.json and the
// two counts lists into the work directory. A mismatch fails the job, so
// the run can never end in "success" with a table short.
func (e *Executor) verifyJob(log *os.File) (journal.Record, error) {
	before, err := readAnalysis(e.cfg.work(SourceAnalysis))
	if err != nil {
		return journal.Record{}, err
	}
	after, err := readAnalysis(e.cfg.work(TargetAnalysis))
	if err != nil {
		return journal.Record{}, err
	}
	for _, side := range []struct {
		a    *openedge.Analysis
		file string
	}{{before, e.cfg.work(SourceAnalysis)}, {after, e.cfg.work(TargetAnalysis)}} {
		if err := verify.Readable(side.a, side.file); err != nil {
			return journal.Record{}, fmt.Errorf("verify: %w", err)
		}
	}
	res := verify.Compare(verify.NewSide(before, e.cfg.work(SourceAnalysis)), verify.NewSide(after, e.cfg.work(TargetAnalysis)))
	sec, err := compareSecurity(e.cfg)
	if err != nil {
		return journal.Record{}, fmt.Errorf("verify: %w", err)
	}
	res.AddSecurity(sec)
	seqs, err := compareSequences(e.cfg)
	if err != nil {
		return journal.Record{}, fmt.Errorf("verify: %w", err)
	}
	res.AddSequences(seqs)
	if err := verify.Write(e.cfg.Work, res); err != nil {
		return journal.Record{}, err
	}
	_ = verify.WriteText(log, res)
	e.mu.Lock()
	e.verified = res
	e.mu.Unlock()
	rec := journal.Record{Records: res.After.Records, CountKnown: true,
		Message: fmt.Sprintf("%s tables, %s records; sha256 before %s after %s; %s", units.Thousands(int64(len(res.Rows))), units.Thousands(res.After.Records), res.Before.ShortSum(), res.After.ShortSum(), sec.After)}
	for _, f := range []string{verify.JSONFile, verify.BeforeList, verify.AfterList} {
		if pf, err := proof(e.cfg.work(f)); err == nil {
			rec.Files = append(rec.Files, pf)
		}
	}
	if err := res.Err(); err != nil {
		if len(res.Bad) == 0 && seqs.Err() != nil {
			// the two files the values were read from
			err = fmt.Errorf("%w (%s, %s)", err, e.cfg.work(SequenceValues), e.cfg.work(TargetSequenceValues))
		}
		return rec, fmt.Errorf("verify: %w (details: %s)", err, e.cfg.work(verify.JSONFile))
	}
	return rec, nil
}

// compareSequences compares the source's sequence values (dump-sequences)
// with the target's, read back by load-sequences with the same program:
// the same lines, whatever their order. A sequence left at its initial
// value gives the first records after the migration keys already used
// (nu-trial8: nothing compared them).
func compareSequences(c *Config) (*verify.SequenceResult, error) {
	src, err := os.ReadFile(c.work(SequenceValues))
	if err != nil {
		return nil, err
	}
	dst, err := os.ReadFile(c.work(TargetSequenceValues))
	if err != nil {
		return nil, err
	}
	return verify.CompareSequenceFiles(c.work(SequenceValues), string(src), c.work(TargetSequenceValues), string(dst))
}

// compareSecurity compares the source's users, grants and views
// (dump-security) with the target's, read back by load-security.
func compareSecurity(c *Config) (*verify.SecurityResult, error) {
	before, err := openedge.ReadSecurity(c.work(SecurityDir))
	if err != nil {
		return nil, err
	}
	after, err := openedge.ReadSecurity(c.work(TargetSecurityDir))
	if err != nil {
		return nil, err
	}
	return verify.CompareSecurity(before, after), nil
}

func readAnalysis(path string) (*openedge.Analysis, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return openedge.ParseAnalysis(f, path)
}
