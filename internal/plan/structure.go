package plan

import (
	"github.com/oedl/oedl/internal/openedge"
)

// Structure is the target .st of the plan, in the order prostrct list
// writes it: the BI, the Schema Area (metaschema only), the planned areas by
// number, then the after-image extents.
func (p *Plan) Structure() *openedge.Structure {
	s := &openedge.Structure{Source: "target.st"}
	if len(p.BI.Extents) > 0 {
		s.Areas = append(s.Areas, &openedge.StructArea{Type: openedge.AreaBeforeImage, Extents: stExtents(p.BI.Extents)})
	}
	schema := p.Schema
	if len(schema) == 0 {
		schema = []Extent{{Path: "."}}
	}
	s.Areas = append(s.Areas, &openedge.StructArea{
		Type: openedge.AreaData, Name: openedge.SchemaAreaName, Number: openedge.SchemaAreaNum,
		RPB: DefaultRPB(p.BlockSize), BPC: 1, Extents: stExtents(schema),
	})
	for _, a := range p.Areas {
		s.Areas = append(s.Areas, &openedge.StructArea{
			Type: openedge.AreaData, Name: a.Name, Number: a.Number, RPB: a.RPB, BPC: a.BPC,
			Extents: stExtents(a.Extents),
		})
	}
	// Each AI extent is its own area (a line of its own, unnamed).
	for _, e := range p.AI {
		s.Areas = append(s.Areas, &openedge.StructArea{Type: openedge.AreaAfterImage, Extents: stExtents([]Extent{e})})
	}
	return s
}

func stExtents(ext []Extent) []openedge.Extent {
	out := make([]openedge.Extent, len(ext))
	for i, e := range ext {
		out[i] = openedge.Extent{Path: e.Path, Fixed: e.Fixed, SizeKB: e.SizeKB}
	}
	return out
}

// AddStructure is tablemove.st: the plan's data, index and LOB areas for
// `prostrct addonline` on the source, the first step of the online
// alternative. The areas carry no numbers, so prostrct gives them free
// ones instead of clashing with the source's own areas 7 and up.
func (p *Plan) AddStructure() *openedge.Structure {
	s := &openedge.Structure{Source: "tablemove.st"}
	for _, a := range p.Areas {
		s.Areas = append(s.Areas, &openedge.StructArea{
			Type: openedge.AreaData, Name: a.Name, RPB: a.RPB, BPC: a.BPC, Extents: stExtents(a.Extents),
		})
	}
	return s
}
