package run

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/verify"
)

// A replica is used only once it is proven to hold the frozen source's
// data (docs/hosts.md): its tabanalys (analyze-replica, run on it) against
// the source's baseline (prove-replica, here): every table with the same
// records, and the same size, smallest, largest and mean record. Equal
// counts alone would pass a replica that is behind by updates; the sizes
// move with almost any change of a record's fields. What tabanalys cannot
// see (a field changed to a value of the same length) it cannot prove:
// with OpenEdge Replication, a replica that has applied the source's last
// after-image notes is block for block the source, which is the DBA's
// stronger proof, and the final verify of the target still compares every
// table with the source's own baseline.

func replicaAnalysis(host string) string { return "replica-" + safeName(host) + ".tba" }

// proveReplicaJob compares the replica's tabanalys with the source's; any
// difference refuses the replica (the job fails, and nothing is dumped
// there). The failure names each table.
func (e *Executor) proveReplicaJob(host string, log *os.File) (journal.Record, error) {
	srcPath, repPath := e.cfg.work(SourceAnalysis), e.cfg.work(replicaAnalysis(host))
	src, err := readAnalysis(srcPath)
	if err != nil {
		return journal.Record{}, err
	}
	rep, err := readAnalysis(repPath)
	if err != nil {
		return journal.Record{}, err
	}
	res := verify.Compare(verify.NewSide(src, srcPath), verify.NewSide(rep, repPath))
	var bad []string
	for _, r := range res.Bad {
		bad = append(bad, fmt.Sprintf("%s: %d records on the source, %d here (%s)", r.Table, r.Before, r.After, r.Status))
	}
	sizes := map[string]openedge.TableStat{}
	for _, t := range src.Tables {
		sizes[strings.ToLower(t.QualifiedName())] = t
	}
	for _, t := range rep.Tables {
		s, ok := sizes[strings.ToLower(t.QualifiedName())]
		if !ok || s.Records != t.Records {
			continue // told by the counts already
		}
		if s.Bytes != t.Bytes || s.MinRecord != t.MinRecord || s.MaxRecord != t.MaxRecord || s.MeanRecord != t.MeanRecord {
			bad = append(bad, fmt.Sprintf("%s: records of other sizes (%d bytes, %d-%d mean %d on the source; %d bytes, %d-%d mean %d here)",
				t.QualifiedName(), s.Bytes, s.MinRecord, s.MaxRecord, s.MeanRecord, t.Bytes, t.MinRecord, t.MaxRecord, t.MeanRecord))
		}
	}
	fmt.Fprintf(log, "replica %s against the source: %d tables, %d records; sha256 of the counts %s and %s\n",
		host, len(res.Rows), res.After.Records, res.Before.ShortSum(), res.After.ShortSum())
	rec := journal.Record{Records: res.After.Records, CountKnown: true}
	if len(bad) > 0 {
		sort.Strings(bad)
		for _, b := range bad {
			fmt.Fprintln(log, "  "+b)
		}
		shown := bad
		if len(shown) > 10 {
			shown = append(shown[:10:10], fmt.Sprintf("... and %d more", len(bad)-10))
		}
		return rec, refusedError{fmt.Errorf("replica %s does not hold the frozen source's data, so nothing is dumped there: %d table(s) differ: %s (%s against %s); let it catch up with the source, or leave it out of the hosts file and resume",
			host, len(bad), strings.Join(shown, "; "), repPath, srcPath)}
	}
	rec.Message = fmt.Sprintf("holds the source's data: %d tables, %d records, the same counts and sizes", len(res.Rows), res.After.Records)
	return rec, nil
}

// refusedError is a job that must not be tried again: the state it found
// stays what it is until the DBA acts (a replica that differs).
type refusedError struct{ error }

func (r refusedError) Unwrap() error { return r.error }
