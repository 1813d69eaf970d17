package plan

import (
	"bufio"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/oedl/oedl/internal/units"
)

// WritePlacement writes placement.md: how the plan decides, one table of
// areas, one of tables, and the totals. Every figure is the plan's own, so
// the Markdown and plan.json cannot disagree.
func WritePlacement(w io.Writer, p *Plan) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "# Placement plan\n\nSource: %s", mdCell(sourceLabel(p)))
	if p.Source.DF != "" {
		fmt.Fprintf(bw, ", .df %s", mdCell(p.Source.DF))
	}
	if p.Source.BlockSize > 0 {
		fmt.Fprintf(bw, " (source block size %d)", p.Source.BlockSize)
	}
	fmt.Fprintf(bw, ".\nTarget: %s, block size %d, for %d cores and %s of memory.\n",
		mdCell(targetLabel(p)), p.BlockSize, p.Machine.Cores, sizeOf(p.Machine.MemoryBytes))
	if p.Skipped > 0 {
		fmt.Fprintf(bw, "%d system tables (metaschema, SQL catalog) are not placed: every empty database has them.\n", p.Skipped)
	}

	pol := p.Policy
	fmt.Fprintf(bw, `
## How tables are placed

* **Records per block**: RPB = (B - H) / (mean + 2), rounded up to a power of two within 1..256, with
  B = %d (block size), H = %d bytes of block overhead (Type II header 64-80 B plus slack that records
  never fill) and 2 bytes of row directory per record; the tabanalys mean record size already includes
  the record's own overhead. Rounding goes up because 64-bit rowids (10.1B+) make unused row slots free,
  while a lower RPB leaves part of every block empty. Round down by hand for tables whose records grow
  after they are created. Empty tables get the default RPB %d.
* **Small** tables (under %s) share data areas by RPB class with 8 blocks per cluster: every object
  takes at least one cluster, so bigger clusters would waste space on each tiny table.
* **Medium** tables (%s to %s) share data areas by RPB class with 64 blocks per cluster.
* **Large** tables (%s and up%s) get their own data area with 512 blocks per cluster.
* Every data area has its own index area (RPB 1; BPC 8 for small pools, 64 otherwise). LOB columns go
  to a LOB area. Nothing stays in the Schema Area. Areas are numbered from 7.
* Extents: fixed extents for the data plus %d%% headroom, at most %s each, then one variable extent;
  %s.
`, p.BlockSize, pol.BlockOverhead, DefaultRPB(p.BlockSize),
		units.FormatIEC(pol.MediumBytes), units.FormatIEC(pol.MediumBytes), units.FormatIEC(pol.LargeBytes),
		units.FormatIEC(pol.LargeBytes), topLabel(pol.TopN), pol.HeadroomPct, units.FormatIEC(pol.MaxExtentBytes),
		dirsSentence(pol.DataDirs))

	if p.LargeFiles {
		fmt.Fprintf(bw, "* **Large files:** some extents are over 2 GiB (--max-extent %s), so the target needs large files: "+
			"every license from OpenEdge 12.6, Enterprise in 12.0 to 12.5 (on by default), Enterprise in 11.x "+
			"after proutil -C enablelargefiles. Without them prostrct create refuses these extents.\n",
			units.FormatIEC(pol.MaxExtentBytes))
	}

	bw.WriteString("\n## Areas\n\n" + approximateNote(p) + "| # | Area | Kind | RPB | BPC | Tables | Size | Extents | Reason |\n|---:|---|---|---:|---:|---:|---:|---|---|\n")
	for _, a := range p.Areas {
		size := units.FormatIEC(a.Bytes)
		if a.Kind == AreaIndex && !p.Source.IndexSummary || a.Kind == AreaLOB && !p.Source.LOBSummary {
			size = "unknown"
		}
		fmt.Fprintf(bw, "| %d | %s | %s | %d | %d | %d | %s | %s | %s |\n", a.Number, mdCell(a.Name), a.Kind, a.RPB, a.BPC,
			len(a.Tables), size, extentSummary(a.Extents), mdCell(a.Reason))
	}

	// "From" is the table's area in the source: a DBA checking a move reads
	// where each table was beside where it goes (dba-review).
	bw.WriteString("\n## Tables\n\n| Table | From | Size | Records | Mean (B) | Indexes | Class | RPB | BPC | Data area | Index area | LOB area | Reason |\n|---|---|---:|---:|---:|---:|---|---:|---:|---|---|---|---|\n")
	for _, t := range p.Tables {
		fmt.Fprintf(bw, "| %s | %s | %s | %s | %d | %d | %s | %d | %d | %s | %s | %s | %s |\n", mdCell(t.Table), mdCell(sourceAreaLabel(t.SourceArea)),
			units.FormatIEC(t.Bytes), units.Thousands(t.Records), t.MeanRecord, t.Indexes, t.Class, t.RPB, t.BPC,
			mdCell(t.DataArea), mdCell(t.IndexArea), mdCell(t.LOBArea), mdCell(t.Reason))
	}

	classes := map[SizeClass]int{}
	for _, t := range p.Tables {
		classes[t.Class]++
	}
	tot := p.Totals
	indexes := units.FormatIEC(tot.IndexBytes)
	if !p.Source.IndexSummary {
		indexes = "unknown (the report has no index summary: dbanalys has one)"
	}
	fmt.Fprintf(bw, "\n## Totals\n\n"+approximateNote(p)+"| | |\n|---|---:|\n| Tables | %d (large %d, medium %d, small %d, empty %d) |\n| Records | %s |\n| Data | %s |\n| Indexes | %s |\n| Areas | %d data, %d index, %d LOB |\n",
		tot.Tables, classes[ClassLarge], classes[ClassMedium], classes[ClassSmall], classes[ClassEmpty],
		units.Thousands(tot.Records), units.FormatIEC(tot.Bytes), indexes,
		tot.DataAreas, tot.IndexAreas, tot.LOBAreas)
	bw.WriteString("\n## Disk use\n\nFixed extents are formatted by prostrct create, so this space is taken before the first record loads.\nCreate these directories first: prostrct takes a path that is not an existing directory as an extent file name.\n\n| Directory | Extents | Fixed extents |\n|---|---:|---:|\n")
	for _, du := range p.DiskUse() {
		fmt.Fprintf(bw, "| %s | %d | %s |\n", mdCell(du.Dir), du.Extents, units.FormatIEC(du.FixedBytes))
	}
	fmt.Fprintf(bw, "| **total** | | %s |\n", units.FormatIEC(tot.FixedBytes))
	for _, w := range p.AINotIsolated() {
		fmt.Fprintf(bw, "\n**Warning:** %s (Progress: after-image files must be isolated at the device and file system levels).\n", mdCell(w))
	}
	fmt.Fprintf(bw, "\n## Index rebuild\n\n`proutil %s`\n\n%s\n", strings.Join(p.Idxbuild.Command("DB"), " "), mdCell(p.Idxbuild.Reason))
	return bw.Flush()
}

// sourceAreaLabel is a table's source area as placement.md shows it: a
// report without area headings (some -csoutput files) names none.
func sourceAreaLabel(a string) string {
	if a == "" {
		return "?"
	}
	return a
}

// dirsSentence says where the data extents went (dirRing).
func dirsSentence(dirs []string) string {
	if len(dirs) == 1 {
		return "all in " + mdCell(dirs[0])
	}
	return "a fixed extent goes to whichever of " + mdCell(strings.Join(dirs, ", ")) +
		" holds the fewest fixed bytes so far,\n  the variable extents to each in turn"
}

// approximateNote is the paragraph that opens the sections with the
// report's sizes when the report was made while the source was in use: the
// DBA reads them there, not in the report's header.
func approximateNote(p *Plan) string {
	if !p.Source.Approximate {
		return ""
	}
	return fmt.Sprintf("The sizes and record counts are approximations: the source's analysis (%s) was made while the database was in use and says so (2486). The extents are sized from them, with the headroom above; an analysis of the database shut down gives exact figures.\n\n", mdCell(sourceLabel(p)))
}

// extentSummary is "2 x f 1.0G + v" style text.
func extentSummary(ext []Extent) string {
	var fixed int
	var size int64
	variable := false
	for _, e := range ext {
		if e.Fixed {
			fixed++
			size = e.SizeKB * 1024
		} else {
			variable = true
		}
	}
	var parts []string
	if fixed > 0 {
		parts = append(parts, fmt.Sprintf("%d x f %s", fixed, units.FormatIEC(size)))
	}
	if variable {
		parts = append(parts, "v")
	}
	return strings.Join(parts, " + ")
}

// mdCell escapes text for a Markdown table cell.
func mdCell(s string) string { return mdCellEscaper.Replace(s) }

var mdCellEscaper = strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ")

func targetLabel(p *Plan) string {
	if p.Target != "" {
		return p.Target
	}
	return "(no --target: " + NoTargetNote(p) + ")"
}

// NoTargetNote says where a plan made without --target puts the new
// database: its control area where prostrct create runs, and its extents
// there too unless every extent directory is absolute (--data-dir /data1
// puts them on /data1, whatever directory prostrct create runs in).
func NoTargetNote(p *Plan) string {
	dirs := append([]string{p.Policy.BIDir}, p.Policy.DataDirs...)
	here, relative := false, false
	for _, d := range append(dirs, p.Policy.AIDirs...) {
		here = here || filepath.Clean(d) == "."
		relative = relative || (!filepath.IsAbs(d) && filepath.Clean(d) != ".")
	}
	switch {
	case relative:
		return "extents in directories relative to the one prostrct create runs in: run it from the target directory"
	case here:
		return "extents at \".\": run prostrct create from the target directory"
	}
	return "the .db and .lg go where prostrct create runs, the extents to the directories target.st names"
}

func topLabel(n int) string {
	if n <= 0 {
		return ""
	}
	return fmt.Sprintf(", and the %d largest", n)
}

func sizeOf(n int64) string { return units.FormatIEC(n) }
