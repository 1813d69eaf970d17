package sim

import (
	"os"
	"strconv"
	"time"

	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/sim/store"
)

// dbAnalysis is the rest of a dbanalys: the chain and block analysis of
// every area (the Control Area first), the database block analysis and
// the closing line, from what the areas hold. oesim keeps no free or
// index delete chain: those are 0, as on a freshly loaded database.
func dbAnalysis(db *store.DB, a *openedge.Analysis, areas []*store.Area) (*openedge.DBAnalysis, error) {
	c := db.Ctl
	d := &openedge.DBAnalysis{Complete: time.Now().Format("Mon Jan _2 15:04:05 2006")}
	// The Control Area (DB.db) holds the area and extent records: a few
	// blocks, as in the sports2000 report.
	d.Areas = append(d.Areas, openedge.AreaAnalysis{Name: "Control Area", Number: openedge.ControlAreaNum,
		RMChain: []openedge.RMChainObject{{Blocks: 1, Type: "Table", Name: "PUB._Area:-71"}},
		Total:   7, HighWater: 5, Record: 1, Index: 2, Empty: 2, ObjectBl: 1})
	var objects, empty int64
	for _, ar := range areas {
		af, err := db.Area(ar.Number)
		if err != nil {
			return nil, err
		}
		hw, err := af.HighWater()
		if err != nil {
			return nil, err
		}
		aa := openedge.AreaAnalysis{Name: ar.Name, Number: ar.Number, HighWater: hw,
			Total: max(hw, extentBlocks(ar, c.BlockSize))}
		for _, t := range c.Tables {
			if t.Area == ar.Number {
				st, err := db.TableStatsOf(t)
				if err != nil {
					return nil, err
				}
				aa.Record += st.UsedBlocks
				aa.ObjectBl++
				if st.Records > 0 {
					aa.RMChain = append(aa.RMChain, openedge.RMChainObject{Blocks: 1, Type: "Table",
						Name: t.QualifiedName() + ":" + strconv.Itoa(t.Number)})
				}
			}
			for _, ix := range t.Indexes {
				if ix.Area == ar.Number {
					st, err := db.IndexStatsOf(ix)
					if err != nil {
						return nil, err
					}
					aa.Index += st.Blocks
					aa.ObjectBl++
				}
			}
		}
		// Below the high-water mark: the area header, the record and index
		// blocks, one object block per object as far as they fit, the
		// rest free.
		aa.ObjectBl = min(aa.ObjectBl, max(0, aa.HighWater-1-aa.Record-aa.Index))
		aa.Free = max(0, aa.HighWater-1-aa.Record-aa.Index-aa.ObjectBl)
		aa.Empty = max(0, aa.Total-aa.HighWater)
		objects += aa.ObjectBl
		empty += aa.Empty
		d.Areas = append(d.Areas, aa)
	}
	b := &d.Blocks
	b.Master, b.Area, b.Control, b.Sequence = 1, int64(len(d.Areas)), 1, 1
	b.Object, b.Empty = objects+1, empty+2
	for _, aa := range d.Areas {
		b.Free += aa.Free
		b.Total += aa.Total
	}
	return d, nil
}

// systemTables adds the meta-schema rows a dbanalys shows: _Area and
// _AreaExtent in the Control Area, the schema tables in the Schema Area,
// counted from the schema. It returns the RM blocks they use.
func systemTables(c *store.Control, a *openedge.Analysis) int64 {
	extents, fields, indexes, components := 0, 0, 0, 0
	for _, ar := range c.Areas {
		extents += len(ar.Extents)
	}
	for _, t := range c.Tables {
		fields += len(t.Fields)
		indexes += len(t.Indexes)
		for _, ix := range t.Indexes {
			components += len(ix.Fields)
		}
	}
	control := openedge.AreaSummary{Name: "Control Area", Number: openedge.ControlAreaNum}
	a.Areas = append([]openedge.AreaSummary{control}, a.Areas...)
	rows := []struct {
		area   openedge.AreaSummary
		name   string
		n      int
		mean   int64
		lo, hi int64
	}{
		{control, "_Area", len(c.Areas) + 1, 43, 38, 54},
		{control, "_AreaExtent", extents + 1, 37, 35, 40},
		{openedge.AreaSummary{Name: openedge.SchemaAreaName, Number: openedge.SchemaAreaNum}, "_Db", 1, 210, 210, 210},
		{openedge.AreaSummary{Name: openedge.SchemaAreaName, Number: openedge.SchemaAreaNum}, "_File", len(c.Tables), 320, 251, 402},
		{openedge.AreaSummary{Name: openedge.SchemaAreaName, Number: openedge.SchemaAreaNum}, "_Field", fields, 162, 121, 233},
		{openedge.AreaSummary{Name: openedge.SchemaAreaName, Number: openedge.SchemaAreaNum}, "_Index", indexes, 91, 74, 118},
		{openedge.AreaSummary{Name: openedge.SchemaAreaName, Number: openedge.SchemaAreaNum}, "_Index-Field", components, 41, 39, 44},
	}
	var blocks, bytes int64
	sys := make([]openedge.TableStat, 0, len(rows))
	for _, r := range rows {
		if r.n == 0 {
			continue
		}
		n := int64(r.n)
		sys = append(sys, openedge.TableStat{Area: r.area.Name, AreaNum: r.area.Number, Owner: "PUB", Name: r.name,
			Records: n, Bytes: n * r.mean, MinRecord: r.lo, MaxRecord: r.hi, MeanRecord: r.mean, Fragments: n,
			FragFactor: 1, ScatterFactor: 1})
		bytes += n * r.mean
	}
	blocks = max(1, bytes/int64(c.BlockSize)+int64(len(sys)))
	a.Tables = append(sys, a.Tables...)
	return blocks
}

// extentBlocks is the size of an area's extents in blocks: the fixed
// ones whole, the variable one as far as it has grown.
func extentBlocks(a *store.Area, blockSize int) int64 {
	var n int64
	for _, e := range a.Extents {
		if e.Fixed {
			n += e.SizeKB * 1024 / int64(blockSize)
		} else if st, err := os.Stat(e.Path); err == nil {
			n += st.Size() / int64(blockSize)
		}
	}
	return n
}
