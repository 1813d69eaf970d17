package openedge

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// Limits of the .st grammar (openedge-formats.md §5.1) and of the
// database (docs/formats-st-df.md, "What prostrct refuses").
const (
	maxRPB         = 256
	maxAreaNum     = 32000
	minExtentKB    = 32 // "size = numeric value > 32"
	variableExtent = "variable"
	// MaxExtentsPerArea: "a maximum of 1024 extents per area".
	MaxExtentsPerArea = 1024
	// MaxExtentKB: one extent holds at most 1 TB, with large files.
	MaxExtentKB = 1 << 30
	// twoGiBKB is where an extent needs large files: without them every
	// extent stays below 2 GiB (MaxExtentKBWithoutLargeFiles).
	twoGiBKB = 2 << 20
)

// MaxExtentKBWithoutLargeFiles is the largest extent a database without
// large files takes at that block size: the largest multiple of 16 blocks
// below 2 GiB, the sizes Progress KB P4211 tabulates (2,097,024 KB at 8 KB
// blocks, 2,097,136 at 1 KB). A larger fixed extent, or a variable one
// with a larger maximum, needs large files.
func MaxExtentKBWithoutLargeFiles(blockSize int) int64 {
	unit := int64(blockSize) * 16 / 1024
	if unit <= 0 {
		return twoGiBKB - 1
	}
	return (twoGiBKB - 1) / unit * unit
}

// LargeFileExtents are the extents of s that need large files at that
// block size (fixed sizes as prostrct rounds them, RoundExtentKB): a
// database without large files refuses them, so prostrct create fails or,
// for a variable extent's maximum, the extent stops at 2 GiB (8898).
func (s *Structure) LargeFileExtents(blockSize int) []Extent {
	limit := MaxExtentKBWithoutLargeFiles(blockSize)
	var out []Extent
	for _, a := range s.Areas {
		for _, e := range a.Extents {
			size := e.SizeKB
			if e.Fixed {
				size = RoundExtentKB(size, blockSize)
			}
			if size > limit {
				out = append(out, e)
			}
		}
	}
	return out
}

// Validate applies the rules prostrct applies before it creates anything and
// returns every violation, each as "file:line: problem", joined with
// errors.Join (nil when the structure is valid):
//
//   - records per block is a power of 2 from 1 to 256;
//   - blocks per cluster is 1, 8, 64 or 512;
//   - a, b and t lines carry no records per block or blocks per cluster;
//   - if any data area has a number, all of them do (the Schema Area aside,
//     which is always 6 and may be written without it);
//   - the Schema Area, when numbered, is 6, and other data areas are 7..32000;
//   - every line of an area repeats the same number, RPB and BPC;
//   - no two areas share a number;
//   - an area has at most one variable extent and it is the last one;
//   - an extent size, when given, is more than 32 KB and at most 1 TB;
//   - an area has at most 1024 extents;
//   - the Schema Area is Type I (blocks per cluster 1);
//   - the transaction log area (t) has fixed extents only.
func (s *Structure) Validate() error {
	v := stValidator{s: s}
	for _, m := range s.mismatches {
		v.addf(m.line, "area %q is %q here but %q on line %d", m.name, m.got, m.want, m.first)
	}
	v.numbering()
	for _, a := range s.Areas {
		v.area(a)
	}
	sort.SliceStable(v.errs, func(i, j int) bool { return v.errs[i].line < v.errs[j].line })
	errs := make([]error, len(v.errs))
	for i, e := range v.errs {
		errs[i] = e.err
	}
	return errors.Join(errs...)
}

type stValidator struct {
	s    *Structure
	errs []lineError
}

type lineError struct {
	line int
	err  error
}

func (v *stValidator) addf(line int, format string, args ...any) {
	err := fmt.Errorf("%s:%d: %s", v.s.Source, line, fmt.Sprintf(format, args...))
	v.errs = append(v.errs, lineError{line, err})
}

func (v *stValidator) area(a *StructArea) {
	label := a.label()
	if !a.Type.hasAreaInfo() && (a.RPB != 0 || a.BPC != 0) {
		v.addf(a.Line, "%s: records per block and blocks per cluster are only for data areas", label)
	}
	if a.RPB != 0 && (a.RPB > maxRPB || a.RPB&(a.RPB-1) != 0) {
		v.addf(a.Line, "%s: records per block %d is not a power of 2 from 1 to %d", label, a.RPB, maxRPB)
	}
	switch a.BPC {
	case 0, 1, 8, 64, 512:
	default:
		v.addf(a.Line, "%s: blocks per cluster %d is not 1, 8, 64 or 512", label, a.BPC)
	}
	if a.Type.hasAreaInfo() && a.Number != 0 {
		if a.isSchema() && a.Number != SchemaAreaNum {
			v.addf(a.Line, "%s: the Schema Area is always area %d, not %d", label, SchemaAreaNum, a.Number)
		}
		if !a.isSchema() && (a.Number < FirstUserAreaNum || a.Number > maxAreaNum) {
			v.addf(a.Line, "%s: data area numbers run from %d to %d", label, FirstUserAreaNum, maxAreaNum)
		}
	}
	if a.Type == AreaEncryption {
		v.encryptionArea(a, label)
	}
	if a.isSchema() && a.BPC > 1 {
		v.addf(a.Line, "%s: the Schema Area is a Type I area (blocks per cluster 1), not %d", label, a.BPC)
	}
	if len(a.Extents) > MaxExtentsPerArea {
		v.addf(a.Extents[MaxExtentsPerArea].Line, "%s: %d extents; an area has at most %d", label, len(a.Extents), MaxExtentsPerArea)
	}
	for i, e := range a.Extents {
		if a.Type == AreaTransaction && !e.Fixed {
			v.addf(e.Line, "%s: the transaction log area has fixed extents only", label)
		}
		if e.SizeKB > MaxExtentKB {
			v.addf(e.Line, "%s: extent size %d KB is more than 1 TB (%d KB), the largest extent OpenEdge has", label, e.SizeKB, int64(MaxExtentKB))
		}
		if !e.Fixed && i != len(a.Extents)-1 {
			v.addf(e.Line, "%s: a %s extent must be the last extent of its area (line %d follows)", label, variableExtent, a.Extents[i+1].Line)
		}
		if e.SizeKB != 0 && e.SizeKB <= minExtentKB {
			v.addf(e.Line, "%s: extent size %d KB is not more than %d KB", label, e.SizeKB, minExtentKB)
		}
	}
}

// numbering checks "all or none" and uniqueness of area numbers.
func (v *stValidator) numbering() {
	var numbered, unnumbered []*StructArea
	byNum := map[int][]*StructArea{}
	for _, a := range v.s.Areas {
		if a.Number != 0 {
			byNum[a.Number] = append(byNum[a.Number], a)
		}
		if !a.Type.hasAreaInfo() || a.isSchema() {
			continue
		}
		if a.Number != 0 {
			numbered = append(numbered, a)
		} else {
			unnumbered = append(unnumbered, a)
		}
	}
	if len(numbered) > 0 {
		for _, a := range unnumbered {
			v.addf(a.Line, "%s has no area number but %s (line %d) has one: number all areas or none", a.label(), numbered[0].label(), numbered[0].Line)
		}
	}
	nums := make([]int, 0, len(byNum))
	for n := range byNum {
		nums = append(nums, n)
	}
	sort.Ints(nums)
	for _, n := range nums {
		areas := byNum[n]
		for _, a := range areas[1:] {
			v.addf(a.Line, "%s uses area number %d, already used by %s (line %d)", a.label(), n, areas[0].label(), areas[0].Line)
		}
	}
}

// label names an area in messages: `area "Data"` or `b area`.
func (a *StructArea) label() string {
	if a.Name != "" {
		return fmt.Sprintf("area %q", a.Name)
	}
	return fmt.Sprintf("%c area", a.Type)
}

// isSchema reports whether a is the Schema Area (area 6), however the file
// capitalises its name.
func (a *StructArea) isSchema() bool {
	return a.Type == AreaData && strings.EqualFold(a.Name, SchemaAreaName)
}

// EncryptionAreaName is the one name the e area may have.
const EncryptionAreaName = "Encryption Policy Area"

// encryptionArea checks the documented rules of the Encryption Policy
// Area: that name, a number on its first line (above the Schema Area's),
// and Type II (its cluster size defaults to 8 when not given).
func (v *stValidator) encryptionArea(a *StructArea, label string) {
	if !strings.EqualFold(a.Name, EncryptionAreaName) {
		v.addf(a.Line, "%s: an e line defines the %q and no other area", label, EncryptionAreaName)
	}
	if a.Number == 0 {
		v.addf(a.Line, "%s: the first line of the %s must give its area number", label, EncryptionAreaName)
	}
	if a.BPC == 1 {
		v.addf(a.Line, "%s: the %s is a Type II area (blocks per cluster 8, 64 or 512)", label, EncryptionAreaName)
	}
}
