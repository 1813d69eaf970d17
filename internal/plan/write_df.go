package plan

import (
	"bytes"
	"fmt"
	"io"

	"github.com/oedl/oedl/internal/openedge"
)

// writeTargetDF writes target.df: the source .df with each table's AREA,
// each index's AREA and each LOB field's LOB-AREA set to the planned area,
// and nothing else changed (openedge's DF keeps every other byte and
// recomputes the trailer). The rewrite works on a copy, so df is untouched.
func writeTargetDF(w io.Writer, p *Plan, df *openedge.DF) error {
	var src bytes.Buffer
	if _, err := df.WriteTo(&src); err != nil {
		return err
	}
	cp, err := openedge.ParseDF(&src, df.Name())
	if err != nil {
		return err
	}
	if err := RewriteDF(cp, p); err != nil {
		return err
	}
	_, err = cp.WriteTo(w)
	return err
}

// RewriteDF sets the storage areas of df to the plan's, in place. Every
// table of the plan must be in df (Make checked that with the same .df).
func RewriteDF(df *openedge.DF, p *Plan) error {
	for _, t := range p.Tables {
		d := df.Table(t.Name)
		if d == nil {
			return fmt.Errorf("%s: table %s is in the plan but not in the .df", df.Name(), t.Table)
		}
		if err := df.SetTableArea(d.Name, t.DataArea); err != nil {
			return err
		}
		for _, ix := range d.Indexes {
			if err := df.SetIndexArea(d.Name, ix.Name, t.IndexArea); err != nil {
				return err
			}
		}
		if t.LOBArea == "" {
			continue
		}
		for _, f := range d.Fields {
			if f.IsLOB() {
				if err := df.SetLobArea(d.Name, f.Name, t.LOBArea); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
