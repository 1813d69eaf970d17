package estimate

// The large sample of a calibration is a slice of the source's largest
// table, cut with `proutil -C dumpspecified` on the leading field of one of
// its indexes, so that the per-byte costs are measured on the records that
// dominate the window (their size, their index keys) without dumping the
// whole table. Choosing the range needs values of the key, and calibrate
// reads no data: it searches for the range with dumpspecified itself. Each
// probe is a real dump of its range; the one kept is the sample's dump, so
// nothing is dumped twice.

import (
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/oedl/oedl/internal/diskstats"
	"github.com/oedl/oedl/internal/execx"
	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/units"
)

// sliceKey is the field a slice is cut on.
type sliceKey struct {
	field, typ, index string
}

// chooseSliceKey picks the field to cut table t on: the leading field of
// one of its indexes (the utility then reads the slice through an index
// bracket, not the whole table), a number or a date (a range of it can be
// searched for by bisection); a unique index before a non-unique one, the
// primary first among equals. ok is false when no index qualifies (QAD's
// indexes all lead with the character field *_domain, for one).
func chooseSliceKey(t *openedge.DFTable) (sliceKey, bool) {
	best, bestRank := sliceKey{}, -1
	for _, ix := range t.Indexes {
		if ix.Word || ix.Inactive || len(ix.Fields) == 0 {
			continue
		}
		f := t.Field(ix.Fields[0].Name)
		if f == nil || f.Extent > 0 || sliceDomain(f.Type) == nil {
			continue
		}
		rank := 0
		if ix.Unique {
			rank += 2
		}
		if ix.Primary {
			rank++
		}
		if rank > bestRank {
			best, bestRank = sliceKey{field: f.Name, typ: strings.ToLower(f.Type), index: ix.Name}, rank
		}
	}
	return best, bestRank >= 0
}

// sliceDomain maps a position x ≥ 1 to a dumpspecified condition that
// selects more records as x grows. Numbers: "LE x" (surrogate keys count
// up from 1, so x near the wanted record count is a good first guess).
// Dates: "GE today − x days" (the newest history). nil: not searchable.
func sliceDomain(typ string) func(x int64) (op, value string) {
	switch strings.ToLower(typ) {
	case "integer", "int64", "decimal":
		return func(x int64) (string, string) { return "LE", strconv.FormatInt(x, 10) }
	case "date":
		today := time.Now().UTC().Truncate(24 * time.Hour)
		return func(x int64) (string, string) {
			// -d mdy, the default date format of the utilities.
			return "GE", today.AddDate(0, 0, -int(min(x, 1_000_000))).Format("01-02-2006")
		}
	}
	return nil
}

// sliceLimit is the largest x the field's type can hold: an OpenEdge
// INTEGER is 32 bits, so doubling past it would be refused by the utility.
func sliceLimit(typ string) int64 {
	if strings.ToLower(typ) == "integer" {
		return math.MaxInt32
	}
	return math.MaxInt64
}

// sliceProbe is one dumpspecified of a candidate range.
type sliceProbe struct {
	x       int64
	spec    openedge.DumpSpecified
	records int64
	dir     string
	wall    float64
	cpu     float64
	io      *diskstats.Counts // the disk's counters for the probe, when read
}

// maxSliceProbes bounds the search: doubling from 1 reaches 2^40 (dates:
// the limit of the calendar) in 41 probes, and the bisection stops early.
const maxSliceProbes = 48

// sliceLargest cuts about want records of table t out of the source with
// dumpspecified on key: x doubles until the range holds at least want
// records, then bisects between the last two while it holds more than
// twice want. It returns the kept probe; the others' files are removed.
func (c *calibrator) sliceLargest(ctx context.Context, t *sampleTable, key sliceKey, want int64) (*sliceProbe, error) {
	domain := sliceDomain(key.typ)
	n := 0
	probe := func(x int64) (_ *sliceProbe, err error) {
		n++
		if n > maxSliceProbes {
			return nil, fmt.Errorf("no range of %s.%s holds %d records after %d dumpspecified probes", t.name, key.field, want, maxSliceProbes)
		}
		op, value := domain(x)
		p := &sliceProbe{x: x, spec: openedge.DumpSpecified{Table: t.name, Field: key.field, Op1: op, Low: value, PreferIndex: key.index},
			dir: filepath.Join(c.dir, "dump", safeFile(t.name)+".slice"+strconv.Itoa(n))}
		if err := os.MkdirAll(p.dir, 0o755); err != nil {
			return nil, err
		}
		defer func() {
			if err != nil { // a failed probe leaves nothing behind
				_ = os.RemoveAll(p.dir)
			}
		}()
		args, err := openedge.DumpSpecifiedArgs(c.cfg.Source, p.dir, p.spec)
		if err != nil {
			return nil, err
		}
		res, cpu, io, err := c.timedIO(ctx, execx.Cmd{Path: c.bin(openedge.ToolProutil), Args: args})
		if err != nil {
			return nil, err
		}
		p.io = io
		r, err := openedge.ParseDumpOutput(res.Output)
		if err != nil {
			return nil, fmt.Errorf("dumpspecified of %s: %w", t.name, err)
		}
		p.records, p.wall, p.cpu = r.Records, res.Elapsed.Seconds(), cpu
		return p, nil
	}
	drop := func(p *sliceProbe) {
		if p != nil {
			_ = os.RemoveAll(p.dir)
		}
	}
	x := int64(1)
	if key.typ != "date" {
		x = max(1, want)
	}
	var lo *sliceProbe // the largest range known to hold fewer than want
	hi, err := probe(x)
	if err != nil {
		return nil, err
	}
	for hi.records < want {
		if hi.x > sliceLimit(key.typ)/2 {
			drop(lo)
			drop(hi)
			return nil, fmt.Errorf("no range of %s.%s holds %d records", t.name, key.field, want)
		}
		drop(lo)
		lo = hi
		if hi, err = probe(2 * lo.x); err != nil {
			drop(lo)
			return nil, err
		}
	}
	var loX int64
	if lo != nil {
		loX = lo.x
		drop(lo)
	}
	for hi.records > 2*want && hi.x-loX > 1 {
		mid, err := probe(loX + (hi.x-loX)/2)
		if err != nil {
			drop(hi)
			return nil, err
		}
		if mid.records < want {
			loX = mid.x
			drop(mid)
			continue
		}
		drop(hi)
		hi = mid
	}
	return hi, nil
}

// largeSample is the large sample when the largest table is over
// SampleMax: a dumpspecified slice of it of about SampleMax bytes, already
// dumped (its .bd file and timing set). nil, with a note, when the table
// cannot be sliced; the caller then uses the largest table under
// SampleMax, whole.
func (c *calibrator) largeSample(ctx context.Context, stats []openedge.TableStat) (*sampleTable, *sample, error) {
	var big *openedge.TableStat
	for i := range stats {
		if s := &stats[i]; s.Records > 0 && s.Tenancy == "" && (big == nil || s.Bytes > big.Bytes) {
			big = s
		}
	}
	if big == nil || big.Bytes <= c.cfg.SampleMax {
		return nil, nil, nil
	}
	name := big.QualifiedName()
	f, err := os.Open(filepath.Join(c.cfg.PlanDir, "target.df"))
	if err != nil {
		return nil, nil, err
	}
	df, err := openedge.ParseDF(f, f.Name())
	f.Close()
	if err != nil {
		return nil, nil, err
	}
	t := df.Table(name)
	if t == nil {
		t = df.Table(big.Name)
	}
	if t == nil {
		c.notes = append(c.notes, fmt.Sprintf("large sample: %s is not in the plan's target.df; the largest table under --sample-max is sampled whole", name))
		return nil, nil, nil
	}
	key, ok := chooseSliceKey(t)
	if !ok {
		c.notes = append(c.notes, fmt.Sprintf("large sample: no index of %s leads with a number or a date for dumpspecified to cut a range on; the largest table under --sample-max is sampled whole", name))
		return nil, nil, nil
	}
	mean := float64(big.Bytes) / float64(big.Records)
	want := max(1, int64(float64(c.cfg.SampleMax)/mean))
	c.logf("slicing %s (%s) with dumpspecified on %s: about %s records", name, units.FormatIEC(big.Bytes), key.field, units.Thousands(want))
	p, err := c.sliceLargest(ctx, &sampleTable{name: name}, key, want)
	if ctx.Err() != nil {
		return nil, nil, ctx.Err()
	}
	if err != nil {
		c.notes = append(c.notes, fmt.Sprintf("large sample: %v; the largest table under --sample-max is sampled whole", err))
		return nil, nil, nil
	}
	st := &sampleTable{name: name, records: p.records, bytes: int64(float64(p.records) * mean), file: firstBD(p.dir),
		slice: fmt.Sprintf("%s %s %s", key.field, p.spec.Op1, p.spec.Low)}
	c.notes = append(c.notes, fmt.Sprintf("large sample: %s %s, %s of %s records (%s)", name, st.slice, units.Thousands(p.records), units.Thousands(big.Records), units.FormatIEC(st.bytes)))
	dump := &sample{Job: "dump " + name + " slice (source)", Records: float64(p.records), Bytes: float64(st.bytes), Wall: p.wall, CPU: p.cpu, IO: p.io}
	return st, dump, nil
}
