package plan

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/units"
)

// alternatePool is what the source .df assigns to the Alternate Buffer
// Pool (UPDATE ... BUFFER-POOL "Alternate": target.df keeps it) and the
// space those objects take, so that target.pf gives them a -B2. Without
// -B2 the assignments stay in the target and do nothing: the objects the
// DBA chose to keep in memory compete in -B again (dba-review).
type alternatePool struct {
	tables, indexes, lobs int
	bytes                 int64
	unknown               []string // objects the report gives no size for
}

// alternatePoolOf sizes the objects of in.AlternatePool from the report:
// a table's records in whole blocks, an index's blocks from the index
// summary, a LOB field's bytes from the LOB summary (11.6 on).
func alternatePoolOf(in Input, tables []*table, blockSize int) alternatePool {
	var ap alternatePool
	if len(in.AlternatePool) == 0 {
		return ap
	}
	byName := map[string]*table{}
	for _, t := range tables {
		if strings.EqualFold(t.owner, "PUB") {
			byName[strings.ToLower(t.name)] = t
		}
	}
	blocks := func(b int64) int64 { return ceilDiv(b, int64(blockSize-BlockOverhead)) * int64(blockSize) }
	for _, o := range in.AlternatePool {
		t := byName[strings.ToLower(o.Table)]
		if t == nil {
			continue // not an application table of the report: nothing of it is loaded
		}
		switch o.Object {
		case "TABLE":
			ap.tables++
			ap.bytes += blocks(t.bytes)
		case "INDEX":
			ap.indexes++
			if b, ok := indexBytes(in.Analysis, t, o.Name); ok {
				ap.bytes += blocks(b)
			} else {
				ap.unknown = append(ap.unknown, fmt.Sprintf("index %s of %s", o.Name, t.qualified()))
			}
		case "FIELD":
			ap.lobs++
			if b, ok := lobBytes(in.Analysis, t, o.Name); ok {
				ap.bytes += blocks(b)
			} else {
				ap.unknown = append(ap.unknown, fmt.Sprintf("LOB field %s of %s", o.Name, t.qualified()))
			}
		}
	}
	return ap
}

func indexBytes(a *openedge.Analysis, t *table, name string) (int64, bool) {
	for _, ix := range a.Indexes {
		if strings.EqualFold(ix.Table, t.name) && strings.EqualFold(ownerOf(ix.Owner), t.owner) && strings.EqualFold(ix.Name, name) {
			return ix.Bytes, true
		}
	}
	return 0, false
}

func lobBytes(a *openedge.Analysis, t *table, field string) (int64, bool) {
	for _, l := range a.LOBs {
		if strings.EqualFold(l.Table, t.name) && strings.EqualFold(ownerOf(l.Owner), t.owner) && strings.EqualFold(l.Field, field) {
			return l.Bytes, true
		}
	}
	return 0, false
}

// ownerOf is a report row's owner: a row without one is a PUB table.
func ownerOf(o string) string {
	if o == "" {
		return "PUB"
	}
	return o
}

// b2Param is target.pf's -B2 for ap: the objects' blocks plus the plan's
// headroom, so that, as Progress asks, the pool always has free buffers
// and its LRU replacement never starts (Alternate Buffer Pool, Overview,
// 12.8 docs); at least 1000 buffers, at most a quarter of the memory, as
// -B. ok is false when the .df assigns nothing.
func b2Param(ap alternatePool, o Options) (p Param, ok bool) {
	n := ap.tables + ap.indexes + ap.lobs
	if n == 0 {
		return Param{}, false
	}
	need := ap.bytes + ap.bytes*int64(o.HeadroomPct)/100
	buffers := min(max(ceilDiv(need, int64(o.BlockSize)), 1000), o.Machine.MemoryBytes/4/int64(o.BlockSize))
	why := fmt.Sprintf("%d buffers x %d B = %s for the %d table(s), %d index(es) and %d LOB field(s) the .df assigns to the Alternate Buffer Pool "+
		"(BUFFER-POOL \"Alternate\", kept in target.df): their %s + %d%% headroom, so that the pool always has free buffers and its LRU "+
		"replacement never starts (Progress, Alternate Buffer Pool overview); at least 1000, at most 25%% of memory as -B",
		buffers, o.BlockSize, units.FormatIEC(buffers*int64(o.BlockSize)), ap.tables, ap.indexes, ap.lobs,
		units.FormatIEC(ap.bytes), o.HeadroomPct)
	if len(ap.unknown) > 0 {
		why += fmt.Sprintf("; the report gives no size for %s: raise -B2 (proutil -C increaseto, online) while PROMON shows the LRU2 replacement enabled",
			strings.Join(ap.unknown, ", "))
	}
	return Param{Name: "-B2", Value: strconv.FormatInt(buffers, 10), Reason: why}, true
}
