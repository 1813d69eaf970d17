package sim

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/oedl/oedl/internal/atomicfile"
	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/sim/store"
)

// analysisQualifier is tabanalys, dbanalys or ixanalys: the report is
// computed from the committed segments (so a lost or extra record shows)
// and printed with openedge.WriteAnalysis, the layout oedl parses.
func analysisQualifier(kind string) func(p *proc, db string, args []string) int {
	return func(p *proc, dbArg string, args []string) int {
		fs, err := parseFlags(args, "-csfilePrefix", "-fieldsep")
		if err != nil {
			return p.usage("%v", err)
		}
		cs := openedge.CSFormat{Verbose: fs.bools["-verbose"]}
		if v, ok := fs.values["-fieldsep"]; ok {
			if cs.Sep, err = fieldSep(v); err != nil {
				return p.usage("%v", err)
			}
		}
		s, rc := p.open(dbArg, client)
		if rc != 0 {
			return rc
		}
		defer s.close()
		a, err := analyse(s.db, kind)
		if err == nil {
			err = chargeScan(p.env, s.db, kind)
		}
		if err != nil {
			return p.failErr(err)
		}
		if s.online {
			p.msg("2486")
		}
		var buf bytes.Buffer
		if err := openedge.WriteAnalysis(&buf, a); err != nil {
			return p.failErr(err)
		}
		p.stdout.Write(buf.Bytes())
		if fs.bools["-csoutput"] {
			prefix := s.paths.Base
			if v, ok := fs.values["-csfilePrefix"]; ok {
				prefix = v
			}
			if rc := writeCSOutput(p, cs, prefix, a); rc != 0 {
				return rc
			}
		}
		return exitOK
	}
}

// fieldSep reads the value of -fieldsep: "sp", "tab" or one printable
// ASCII character. The double quote, which encloses the strings of the
// files, cannot separate their fields.
func fieldSep(v string) (byte, error) {
	switch {
	case v == "sp":
		return ' ', nil
	case v == "tab":
		return '\t', nil
	case len(v) == 1 && v[0] >= 0x21 && v[0] <= 0x7e && v[0] != '"':
		return v[0], nil
	}
	return 0, fmt.Errorf("-fieldsep %q: want sp, tab or one printable ASCII character other than '\"'", v)
}

// writeCSOutput writes <prefix>.tab.txt and, when the report has indexes,
// <prefix>.ix.txt in the format of -fieldsep and -verbose.
func writeCSOutput(p *proc, cs openedge.CSFormat, prefix string, report *openedge.Analysis) int {
	a := *report
	a.Date = csTimeStamp(time.Now())
	var tab, ix bytes.Buffer
	if err := cs.WriteTab(&tab, &a); err != nil {
		return p.failErr(err)
	}
	if err := atomicfile.WriteFileNoSync(prefix+".tab.txt", tab.Bytes()); err != nil {
		return p.failErr(err)
	}
	if len(a.Indexes) > 0 {
		if err := cs.WriteIndex(&ix, &a); err != nil {
			return p.failErr(err)
		}
		if err := atomicfile.WriteFileNoSync(prefix+".ix.txt", ix.Bytes()); err != nil {
			return p.failErr(err)
		}
	}
	return exitOK
}

// csTimeStamp is the files' "Time Stamp" column: a DATETIME-TZ, unquoted,
// with milliseconds and the zone's hours unpadded (2015-07-07T17:05:42.000+2:00,
// as in the 11.5.1 sample of testdata/csoutput), not the report's date.
func csTimeStamp(t time.Time) string {
	_, off := t.Zone()
	sign := '+'
	if off < 0 {
		sign, off = '-', -off
	}
	return fmt.Sprintf("%s%c%d:%02d", t.Format("2006-01-02T15:04:05.000"), sign, off/3600, off%3600/60)
}

// analyse builds the report of a database.
func analyse(db *store.DB, kind string) (*openedge.Analysis, error) {
	c := db.Ctl
	opts := map[string]string{"tabanalys": "tabanalys", "dbanalys": "chanalys ixanalys tabanalys", "ixanalys": "ixanalys"}[kind]
	a := &openedge.Analysis{
		Database: db.Paths.Base, BlockSize: c.BlockSize, Options: opts, Release: Release,
		Date: time.Now().Format("Mon Jan _2 15:04:05 2006"), RecSpaceSearchDepth: 5,
	}
	areas := make([]*store.Area, 0, len(c.Areas))
	for _, ar := range c.Areas {
		if ar.Type == 'd' {
			areas = append(areas, ar)
		}
	}
	sort.Slice(areas, func(i, j int) bool { return areas[i].Number < areas[j].Number })
	tables := append([]*store.Table(nil), c.Tables...)
	sort.Slice(tables, func(i, j int) bool { return lessFold(tables[i].Name, tables[j].Name) })
	var rmBytes, rmUsable, rmBlocks, ixBytes, ixUsable, ixBlocks int64
	for _, ar := range areas {
		a.Areas = append(a.Areas, openedge.AreaSummary{Name: ar.Name, Number: ar.Number})
		usable := int64(c.BlockSize - 16)
		if ar.TypeII() {
			usable = int64(c.BlockSize - 64)
		}
		if kind != "ixanalys" {
			for _, t := range tables {
				if t.Area != ar.Number {
					continue
				}
				st, err := db.TableStatsOf(t)
				if err != nil {
					return nil, err
				}
				row := openedge.TableStat{Area: ar.Name, AreaNum: ar.Number, Owner: t.Owner, Name: t.Name, Number: t.Number,
					Records: st.Records, Bytes: st.Bytes, MinRecord: st.Min, MaxRecord: st.Max, Fragments: st.Fragments,
					FragFactor: 0, ScatterFactor: st.Scatter}
				if st.Records > 0 {
					row.MeanRecord = int64(math.Round(float64(st.Bytes) / float64(st.Records)))
					row.FragFactor = math.Round(float64(st.Fragments)/float64(st.Records)*10) / 10
				}
				a.Tables = append(a.Tables, row)
				rmBytes += st.Bytes
				rmBlocks += st.UsedBlocks
				rmUsable += st.UsedBlocks * usable
			}
		}
		if kind == "tabanalys" {
			continue
		}
		for _, t := range tables {
			for _, ix := range t.Indexes {
				if ix.Area != ar.Number {
					continue
				}
				st, err := db.IndexStatsOf(ix)
				if err != nil {
					return nil, err
				}
				a.Indexes = append(a.Indexes, openedge.IndexStat{Area: ar.Name, AreaNum: ar.Number, Owner: t.Owner,
					Table: t.Name, TableNum: t.Number, Name: ix.Name, Number: ix.Number, Fields: len(ix.Fields),
					Levels: st.Levels, Blocks: st.Blocks, Bytes: st.Bytes, Util: st.Util, Factor: st.Factor, Inactive: !ix.Active})
				ixBytes += st.Bytes
				ixBlocks += st.Blocks
				ixUsable += st.Blocks * usable
			}
		}
	}
	if kind != "ixanalys" {
		// The meta-schema's records are in every report, as the real
		// ones show them (PUB._Area in the Control Area, PUB._Field in
		// the Schema Area, ...): oedl leaves them out by name.
		rmBlocks += systemTables(c, a)
	}
	if kind == "dbanalys" {
		var err error
		if a.DB, err = dbAnalysis(db, a, areas); err != nil {
			return nil, err
		}
	}
	a.RMBlocks = rmBlocks
	if rmUsable > 0 {
		a.RMUsedPct = math.Round(float64(rmBytes)/float64(rmUsable)*10000) / 100
	}
	a.IndexBlocks = ixBlocks
	if ixUsable > 0 {
		a.IndexUsedPct = math.Round(float64(ixBytes)/float64(ixUsable)*10000) / 100
	}
	return a, nil
}

func lessFold(a, b string) bool {
	la, lb := bytes.ToLower([]byte(a)), bytes.ToLower([]byte(b))
	if c := bytes.Compare(la, lb); c != 0 {
		return c < 0
	}
	return a < b
}

// describeQualifier prints "Key : Value" lines as proutil -C describe.
func describeQualifier(p *proc, dbArg string, args []string) int {
	s, rc := p.open(dbArg, client)
	if rc != 0 {
		return rc
	}
	defer s.close()
	c := s.db.Ctl
	date := func(t time.Time) string {
		if t.IsZero() {
			return "*** Not yet performed ***"
		}
		return t.Local().Format("Mon Jan _2 15:04:05 2006")
	}
	largest := 1
	for _, a := range c.Areas {
		largest = max(largest, a.BPC)
	}
	p.banner()
	p.say("")
	p.say("OpenEdge Database Description")
	p.say("")
	p.say("Database Name               : %s", s.paths.Base)
	p.say("Version                     : 184.0")
	p.say("Block Size                  : %d", c.BlockSize)
	p.say("Largest Cluster             : %d", largest)
	p.say("Create Date                 : %s", date(c.Created))
	p.say("Last Open Date              : %s", date(c.LastOpened))
	p.say("Prior Open Date             : %s", date(c.LastOpened))
	p.say("Schema Change Date          : %s", date(c.SchemaChanged))
	p.say("")
	p.say(" Before Imaging information")
	p.say("  Block Size                : %d", c.BIBlockKB*1024)
	p.say("  Cluster Size (16K Units)  : %d", c.BIClusterKB/16)
	p.say("  Last Open Date            : %s", date(c.LastOpened))
	if c.AIBegun {
		// Only with after-imaging on: oedl tells it from the backup
		// section by its first value, a block size.
		p.say("")
		p.say(" After Imaging Information")
		p.say("  Block Size                : %d", c.BlockSize)
		p.say("  Begin Date                : %s", date(c.LastOpened))
		p.say("  Currently Busy Area       : %d", aiArea(c))
		p.say("  Current File Number       : 1")
	}
	p.say("")
	p.say(" Backup Information")
	p.say("  Last Full Backup Date     : *** Not yet performed ***")
	p.say("  Last Incremental Backup   : *** Not yet performed ***")
	p.say("")
	// 12.x prints the code page here (the 12.8 documentation's sample):
	// the section after the backup one, its first value.
	p.say(" Collation and Character Set Information")
	p.say("  Database code page        : %s", c.Codepage)
	p.say("  Collation name            : basic")
	p.say("")
	p.say(" Database Features")
	p.say("")
	p.say("    ID   Feature                            Active  Details")
	p.say("    ----  ---------------------------------  ------  -------")
	if c.Replication {
		p.say("      1  OpenEdge Replication               Yes")
	}
	p.say("      5  Large Files                        Yes")
	p.say("      9  64 Bit DBKEYS                      Yes")
	return exitOK
}

// aiArea is the first after-image area, the one describe says is busy.
func aiArea(c *store.Control) int {
	for _, a := range c.Areas {
		if a.Type == 'a' {
			return a.Number
		}
	}
	return 0
}
