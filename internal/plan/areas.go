package plan

import (
	"fmt"
	"sort"
	"strings"

	"github.com/oedl/oedl/internal/units"
)

// nameAreas creates the data and index area of each pool. Shared pools are
// named first so a table called "Small64" cannot take a pool's name.
//
// A large table's index area has BPC 64, or 512 when its indexes are
// themselves at least largeBytes (known from a dbanalys index summary).
func nameAreas(pools []*pool, names *areaNamer, blockSize int, largeBytes int64) {
	for _, pl := range pools {
		if pl.class == ClassLarge {
			continue
		}
		base := fmt.Sprintf("%s%d", titleCase(string(pl.class)), pl.rpb)
		pl.data = &Area{Name: names.name(base, "_Data"), Kind: AreaData, RPB: pl.rpb, BPC: bpcFor(pl.class)}
		pl.index = &Area{Name: names.name(base, "_Index"), Kind: AreaIndex, RPB: rpbIndex, BPC: bpcFor(pl.class)}
	}
	for _, pl := range pools {
		if pl.class != ClassLarge {
			continue
		}
		t := pl.tables[0]
		base := t.name
		if !strings.EqualFold(t.owner, "PUB") {
			base = t.owner + "_" + t.name
		}
		pl.data = &Area{Name: names.name(base, "_Data"), Kind: AreaData, RPB: pl.rpb, BPC: bpcLarge}
		ixBPC := bpcMedium
		if t.indexBytes >= largeBytes {
			ixBPC = bpcLarge
		}
		pl.index = &Area{Name: names.name(base, "_Index"), Kind: AreaIndex, RPB: rpbIndex, BPC: ixBPC}
	}
	for _, pl := range pools {
		fillPoolAreas(pl, blockSize)
	}
}

// fillPoolAreas lists the pool's tables in its areas, sums their sizes and
// writes the areas' reasons.
func fillPoolAreas(pl *pool, blockSize int) {
	var bytes, ixBytes int64
	for _, t := range pl.tables {
		pl.data.Tables = append(pl.data.Tables, t.qualified())
		pl.index.Tables = append(pl.index.Tables, t.qualified())
		bytes += t.bytes
		ixBytes += t.indexBytes
		d, ix := spaceFor(t, pl.rpb, pl.data.BPC, pl.index.BPC, blockSize)
		pl.dataSpace += d
		pl.indexSpace += ix
	}
	sort.Strings(pl.data.Tables)
	sort.Strings(pl.index.Tables)
	pl.data.Bytes, pl.index.Bytes = bytes, ixBytes
	n := len(pl.tables)
	switch pl.class {
	case ClassSmall:
		pl.data.Reason = fmt.Sprintf("shared data area of %d small table(s) with RPB %d; BPC %d: each object takes at least one cluster, so small clusters waste at most %d blocks per table",
			n, pl.rpb, bpcSmall, bpcSmall)
	case ClassMedium:
		pl.data.Reason = fmt.Sprintf("shared data area of %d medium table(s) with RPB %d; BPC %d: fewer cluster allocations while they load, at most %d blocks of slack each",
			n, pl.rpb, bpcMedium, bpcMedium)
	case ClassLarge:
		t := pl.tables[0]
		pl.data.Reason = fmt.Sprintf("own data area of %s (%s): its scans are sequential, its load and idxbuild can run beside the others, and truncate area or a later tablemove touch only it; BPC %d: the area grows 512 blocks at a time",
			t.qualified(), units.FormatIEC(t.bytes), bpcLarge)
	}
	pl.index.Reason = fmt.Sprintf("indexes of the tables in %s: kept apart from the record blocks so each area holds one kind of block and idxbuild can go area by area; RPB %d: index blocks hold no records; BPC %d",
		pl.data.Name, rpbIndex, pl.index.BPC)
	if pl.class == ClassLarge && pl.index.BPC == bpcLarge {
		pl.index.Reason += fmt.Sprintf(": its indexes alone are %s", units.FormatIEC(ixBytes))
	}
}

// lobPool makes the LOB area when any table has a blob or clob field: one
// shared area takes them all, its Bytes the LOBs' bytes the report gives
// (0 when it has no LOB SUMMARY).
func lobPool(tables []*table, o Options, names *areaNamer) *Area {
	var with []string
	var bytes int64
	for _, t := range tables {
		if len(t.lobFields) > 0 {
			with = append(with, t.qualified())
			bytes += t.lobBytes
		}
	}
	if len(with) == 0 {
		return nil
	}
	sort.Strings(with)
	return &Area{
		Name: names.name("LOB", "_Data"), Kind: AreaLOB, RPB: DefaultRPB(o.BlockSize), BPC: bpcLOB, Tables: with, Bytes: bytes,
		Reason: fmt.Sprintf("LOB columns of %d table(s), in their own Type II area so that large chunks stay out of the record blocks; RPB %d, the OpenEdge default (it hardly matters for LOB data); BPC %d",
			len(with), DefaultRPB(o.BlockSize), bpcLOB),
	}
}

func bpcFor(c SizeClass) int {
	switch c {
	case ClassMedium:
		return bpcMedium
	case ClassLarge:
		return bpcLarge
	}
	return bpcSmall
}

func titleCase(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
