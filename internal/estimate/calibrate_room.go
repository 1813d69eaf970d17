package estimate

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/room"
	"github.com/oedl/oedl/internal/units"
)

// scratchOverhead is what a scratch database holds beyond its fixed
// extents: the empty database procopy copies in, its schema (load_df.p),
// the BI's first clusters (an 8 KiB empty database and four 512 KiB BI
// clusters are about 3 MiB on OpenEdge; oesim's hold less).
const scratchOverhead = 4 << 20

// calibrationTake is what a calibration writes under WORK/calibrate for
// the sample (tables[0] the large sample), all of it held at once at the
// end (the scratch is kept for the next calibration to clear): the
// sample's dumps from the source and from the served scratch (twice the
// sample, twice the small tables again), every scratch database's fixed
// extents as sizeScratch makes them (the first, the small tables' four,
// and Streams copies of the large table) with their overhead, and
// idxbuild's sort files (three quarters of the data and indexes sorted,
// as the run counts them), and the fixed extent formatted to time it
// (fixedExtentCost: removed once timed, but there beside the first
// scratch). The dumps of the large table beside the batch
// (their count known only then) are checked on their own (besideTake).
func (c *calibrator) calibrationTake(tables []*sampleTable) (room.Take, error) {
	f, err := os.Open(filepath.Join(c.cfg.PlanDir, plan.FileStructure))
	if err != nil {
		return room.Take{}, err
	}
	st, err := openedge.ParseStructure(f, f.Name())
	f.Close()
	if err != nil {
		return room.Take{}, err
	}
	bs := int(c.dstKB * 1024)
	if bs <= 0 {
		bs = 8192
	}
	var all, small, index int64
	for i, t := range tables {
		all += t.bytes
		if i > 0 {
			small += t.bytes
		}
		if p := c.tables[t.name]; p != nil && p.Records > 0 {
			index += p.IndexBytes * t.records / p.Records
		}
	}
	scratch := func(fill scratchFill) int64 {
		// sizeScratch sets each area's extents: on copies of the areas.
		s := &openedge.Structure{}
		for _, a := range st.Areas {
			cp := *a
			s.Areas = append(s.Areas, &cp)
		}
		sizeScratch(s, fill, c.tables, bs)
		n := int64(scratchOverhead)
		for _, a := range s.Areas {
			for _, e := range a.Extents {
				n += e.SizeKB << 10
			}
		}
		return n
	}
	fills := []scratchFill{{tables: tables, indexWrites: 4}, {}, {tables: tables[1:]},
		{tables: tables[1:], buildsIndexes: true}, {tables: tables[1:]}, {tables: tables[1:]}}
	for range c.cfg.Streams {
		fills = append(fills, scratchFill{tables: tables[:1]})
	}
	var dbs int64
	for _, fl := range fills {
		dbs += scratch(fl)
	}
	dumps := 2*all + 2*small
	sort := (all + index) * 3 / 4
	return room.Take{Dir: c.dir, Bytes: dumps + dbs + sort + extentTestBytes, What: []string{
		"sample dumps " + units.FormatIEC(dumps),
		fmt.Sprintf("%d scratch databases %s", len(fills), units.FormatIEC(dbs)),
		"sort files " + units.FormatIEC(sort),
		"a fixed extent timed " + units.FormatIEC(extentTestBytes)}}, nil
}

// checkRoom proves take fits on the filesystem of WORK/calibrate and, where
// the source grows there, leaves it its room (room.Source): refused with
// ErrPrecondition (exit 3) before anything of it is written.
func (c *calibrator) checkRoom(take room.Take) error {
	fs, free, err := room.Of(c.dir)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrPrecondition, err)
	}
	if free < take.Bytes {
		return fmt.Errorf("%w: not enough disk space on the filesystem of %s: %s free, the calibration takes %s (%s)",
			ErrPrecondition, take.Dir, units.FormatIEC(free), units.FormatIEC(take.Bytes), strings.Join(take.What, " + "))
	}
	if err := c.sourceRoom.Check(fs, free, take); err != nil {
		return fmt.Errorf("%w: %v", ErrPrecondition, err)
	}
	return nil
}

// withLargeSample is the sample as the calibration will take it: when the
// largest table is over SampleMax, a slice of about SampleMax of it is the
// large sample (largeSample; its records in proportion).
func (c *calibrator) withLargeSample(tables []*sampleTable, stats []openedge.TableStat) []*sampleTable {
	var largest *openedge.TableStat
	for i, t := range stats {
		if t.Records > 0 && t.Tenancy == "" && t.Bytes > c.cfg.SampleMax && (largest == nil || t.Bytes > largest.Bytes) {
			largest = &stats[i]
		}
	}
	if largest == nil {
		return tables
	}
	big := &sampleTable{name: largest.QualifiedName(), bytes: c.cfg.SampleMax,
		records: max(1, largest.Records*c.cfg.SampleMax/largest.Bytes)}
	if len(tables) == 0 {
		return []*sampleTable{big}
	}
	return append([]*sampleTable{big}, tables[1:]...)
}
