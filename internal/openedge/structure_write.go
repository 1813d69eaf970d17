package openedge

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// WriteStructure writes s in the layout of `prostrct list`: a "#" line
// before each area, then one line per extent repeating the area information:
//
//	#
//	d "Data":7,32;8 /db/sports_7.d1 f 1000192
//	d "Data":7,32;8 /db/sports_7.d2
//
// Paths with blanks are written !"...". A variable extent with a size is
// written "v <KB>". The output parses back to an equal Structure (line
// numbers aside). WriteStructure refuses what the grammar cannot express
// (a quote in a name or path, an empty path, a number on an unnamed area)
// rather than write a file prostrct would read differently.
func WriteStructure(w io.Writer, s *Structure) error {
	bw := bufio.NewWriter(w)
	for _, a := range s.Areas {
		head, err := a.lineHead()
		if err != nil {
			return err
		}
		bw.WriteString("#\n")
		for _, e := range a.Extents {
			path, err := quotePath(e.Path)
			if err != nil {
				return fmt.Errorf("%s: %w", a.label(), err)
			}
			bw.WriteString(head)
			bw.WriteString(path)
			switch {
			case e.Fixed:
				fmt.Fprintf(bw, " f %d", e.SizeKB)
			case e.SizeKB != 0:
				fmt.Fprintf(bw, " v %d", e.SizeKB)
			}
			bw.WriteByte('\n')
		}
	}
	return bw.Flush()
}

// lineHead is what every extent line of the area starts with, up to the
// path: `d "Data":7,32;8 ` or `b `.
func (a *StructArea) lineHead() (string, error) {
	switch a.Type {
	case AreaAfterImage, AreaBeforeImage, AreaData, AreaEncryption, AreaTransaction:
	default:
		return "", fmt.Errorf("area %q: unknown area type %q", a.Name, rune(a.Type))
	}
	if a.Name == "" {
		if a.Number != 0 || a.RPB != 0 || a.BPC != 0 {
			return "", fmt.Errorf("%s: an area without a name cannot carry a number, RPB or BPC in a .st file", a.label())
		}
		return string(a.Type) + " ", nil
	}
	if strings.ContainsAny(a.Name, "\"\n") {
		return "", fmt.Errorf("area %q: a .st area name cannot hold a quote or a line break", a.Name)
	}
	// Not %q: the .st grammar has no escapes, so a backslash stays a backslash.
	return string(a.Type) + ` "` + a.Name + `"` + areaInfo(a.Number, a.RPB, a.BPC) + " ", nil
}

// quotePath writes a path bare, or as !"..." when it holds blanks or would
// otherwise be read as something else. The grammar has no escapes, so a
// path that needs quoting cannot hold a quote.
func quotePath(p string) (string, error) {
	if p == "" {
		return "", fmt.Errorf("empty extent path")
	}
	if strings.ContainsRune(p, '\n') {
		return "", fmt.Errorf("extent path %q: a .st path cannot hold a line break", p)
	}
	if !strings.ContainsAny(p, " \t\r\v\f") && !strings.HasPrefix(p, "!") && !strings.HasPrefix(p, `"`) {
		return p, nil
	}
	if strings.Contains(p, `"`) {
		return "", fmt.Errorf("extent path %q: a path with blanks cannot hold a quote in a .st file", p)
	}
	return `!"` + p + `"`, nil
}

// Area returns the first area called name (case-insensitive, as OpenEdge
// compares area names), or nil.
func (s *Structure) Area(name string) *StructArea {
	for _, a := range s.Areas {
		if a.Name != "" && strings.EqualFold(a.Name, name) {
			return a
		}
	}
	return nil
}

// RoundExtentKB rounds a fixed extent size up the way prostrct does: to a
// multiple of 16 database blocks (openedge-formats.md §5.1: the size "must
// be a multiple of 16 times your database block size"). With 8 KB blocks the
// unit is 128 KB, so 100000 becomes the 100096 that `prostrct list` shows.
// blockSize is in bytes; a size that is already a multiple is returned
// unchanged, and so is any size when blockSize is too small to form a unit.
func RoundExtentKB(sizeKB int64, blockSize int) int64 {
	unit := int64(blockSize) * 16 / 1024
	if unit <= 0 || sizeKB <= 0 {
		return sizeKB
	}
	return (sizeKB + unit - 1) / unit * unit
}
