package plan

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/openedge"
)

// rendered is a plan with its target.st and target.df as oedl run reads
// them back from the plan directory.
func rendered(t *testing.T) (*Plan, *openedge.Structure, *openedge.DF, *openedge.DF) {
	t.Helper()
	p, src := erpPlan(t)
	files, err := Render(p, src)
	require.NoError(t, err)
	var st *openedge.Structure
	var df *openedge.DF
	for _, f := range files {
		switch f.Name {
		case FileStructure:
			st, err = openedge.ParseStructure(bytes.NewReader(f.Data), FileStructure)
		case FileDF:
			df, err = openedge.ParseDF(bytes.NewReader(f.Data), FileDF)
		}
		require.NoError(t, err)
	}
	return p, st, df, src
}

// clone is a deep copy of a plan, to break.
func clone(t *testing.T, p *Plan) *Plan {
	t.Helper()
	b, err := json.Marshal(p)
	require.NoError(t, err)
	var c Plan
	require.NoError(t, json.Unmarshal(b, &c))
	return &c
}

func dataAreaIndex(p *Plan, kind AreaKind) int {
	for i, a := range p.Areas {
		if a.Kind == kind && len(a.Tables) > 0 {
			return i
		}
	}
	return -1
}

// TestCheck: every disagreement inside plan.json, and between plan.json,
// target.st and target.df, is found before anything runs, naming it.
func TestCheck(t *testing.T) {
	p, st, df, _ := rendered(t)
	require.NoError(t, Check(p, st, df), "a plan oedl plan writes holds together")

	tests := []struct {
		name   string
		break_ func(p *Plan)
		want   string
	}{
		{"table in two areas", func(p *Plan) {
			i := dataAreaIndex(p, AreaData)
			for j := range p.Areas {
				if j != i && p.Areas[j].Kind == AreaData {
					p.Areas[j].Tables = append(p.Areas[j].Tables, p.Areas[i].Tables[0])
					return
				}
			}
		}, "is listed in data area"},
		{"data_area naming a missing area", func(p *Plan) { p.Tables[0].DataArea = "Nowhere" }, `has data_area "Nowhere", which is not an area of the plan`},
		{"negative size", func(p *Plan) { p.Tables[0].Bytes = -1 }, "has a negative size"},
		{"BI cluster not a multiple of 16", func(p *Plan) { p.BI.ClusterSizeKB = 100 }, "bi cluster_size_kb 100"},
		{"BI cluster over 256 MB", func(p *Plan) { p.BI.ClusterSizeKB = 262144 }, "bi cluster_size_kb 262144"},
		{"BI block size", func(p *Plan) { p.BI.BlockSizeKB = 32 }, "bi block_size_kb 32; a BI block is 1, 2, 4, 8 or 16 KB"},
		{"BI block under the database block", func(p *Plan) { p.BI.BlockSizeKB = 4 }, "bi block_size_kb 4 is smaller than the database block (8192 bytes)"},
		{"negative extent", func(p *Plan) { p.Areas[0].Extents[0].SizeKB = -128 }, "extent 1 has size -128 KB"},
		{"area renamed only in plan.json", func(p *Plan) {
			i := dataAreaIndex(p, AreaData)
			old := p.Areas[i].Name
			p.Areas[i].Name = old + "X"
			for k := range p.Tables {
				if p.Tables[k].DataArea == old {
					p.Tables[k].DataArea = old + "X"
				}
			}
		}, "is not in target.st (renamed or removed in one file only?)"},
		{"duplicate area numbers", func(p *Plan) { p.Areas[1].Number = p.Areas[0].Number }, "have the same number"},
		{"rpb 0", func(p *Plan) { p.Areas[0].RPB = 0 }, "has rpb 0; records per block is a power of 2"},
		{"bpc 3", func(p *Plan) { p.Areas[0].BPC = 3 }, "has bpc 3; blocks per cluster is 1, 8, 64 or 512"},
		// plan.json edited by hand: the run's prostrct create -blocksize
		// 3000 failed inside the window; --dry-run said nothing
		// (new-user trial 6).
		{"block size 3000", func(p *Plan) { p.BlockSize = 3000 }, "block_size 3000; a database block is 1024, 2048, 4096 or 8192 bytes"},
		{"a table only in plan.json", func(p *Plan) {
			t0 := p.Tables[0]
			t0.Table, t0.Name = "PUB.ghost", "ghost"
			p.Tables = append(p.Tables, t0)
		}, "table PUB.ghost of plan.json is not in target.df"},
		{"data_area pointing at another existing area", func(p *Plan) {
			i := dataAreaIndex(p, AreaData)
			for j := range p.Areas {
				if j != i && p.Areas[j].Kind == AreaData {
					name := p.Tables[0].Table
					p.Tables[0].DataArea = p.Areas[j].Name
					p.Areas[j].Tables = append(p.Areas[j].Tables, name)
					for k, a := range p.Areas {
						p.Areas[k].Tables = without(a.Tables, name, a.Kind == AreaData && k != j)
					}
					return
				}
			}
		}, "here but in"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := clone(t, p)
			tt.break_(q)
			err := Check(q, st, df)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// TestCheckRefusesControlNames: a plan.json or target.df edited to hold a
// name with a control character (oedl plan refuses them) is refused by
// every command that reads the plan, the names quoted, before anything
// runs or prints them raw (safety trial 13).
func TestCheckRefusesControlNames(t *testing.T) {
	p, st, df, _ := rendered(t)
	q := clone(t, p)
	q.Tables[0].Table = "PUB.x\x1b]52;c;aGk=\a"
	err := Check(q, st, df)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `plan.json: table "PUB.x\x1b]52;c;aGk=\a" holds the control character U+001B`)
	assert.Contains(t, err.Error(), noControlNames)
	_, raw := openedge.ControlIn(strings.ReplaceAll(err.Error(), "\n", " "))
	assert.False(t, raw, "the refusal prints no control character raw: %q", err)

	q = clone(t, p)
	q.Areas[0].Name = "Data\r"
	err = Check(q, st, df)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `plan.json: area "Data\r" holds the control character U+000D`)

	src := strings.Replace(string(dfBytes(t, df)), `ADD TABLE "`, "ADD TABLE \"\x07", 1)
	bad, err := openedge.ParseDF(strings.NewReader(src), FileDF)
	require.NoError(t, err)
	err = Check(p, st, bad)
	require.Error(t, err)
	assert.Regexp(t, `target\.df:\d+: table "\\a`, err.Error())
}

func without(list []string, name string, remove bool) []string {
	if !remove {
		return list
	}
	var out []string
	for _, s := range list {
		if s != name {
			out = append(out, s)
		}
	}
	return out
}

// TestCheckSource: a plan made from another database is refused, naming
// the tables; a target.df whose fields differ from the source's too.
func TestCheckSource(t *testing.T) {
	p, _, df, src := rendered(t)
	require.NoError(t, CheckSource(p, df, src, "/db/prod"))

	other := openedge.NewDF([]*openedge.DFTable{{Name: "Customer", Fields: []*openedge.DFField{{Name: "id", Type: "integer"}}}}, nil, "")
	err := CheckSource(p, df, other, "/db/other")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "plan.json was not made from the source /db/other")
	assert.Contains(t, err.Error(), "tables are not in the source")

	// The same tables, one field retyped in the source since the plan.
	var b bytes.Buffer
	_, err = src.WriteTo(&b)
	require.NoError(t, err)
	first := src.Tables()[0].Fields[0]
	changed := strings.Replace(b.String(), `ADD FIELD "`+first.Name+`" OF "`+first.Table+`" AS `+first.Type,
		`ADD FIELD "`+first.Name+`" OF "`+first.Table+`" AS raw`, 1)
	require.NotEqual(t, b.String(), changed)
	moved, err := openedge.ParseDF(strings.NewReader(changed), "src.df")
	require.NoError(t, err)
	err = CheckSource(p, df, moved, "/db/prod")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `is not defined as in the source /db/prod: field "`+first.Name+`" is `+first.Type+` here, raw in the source`)
}

// TestCheckSourceSchemaChangedSincePlan: what the application team adds to
// the source between the plan (or oedl prepare) and the run is refused
// before the dumps, naming it (nu-trial9: a new index or sequence made the
// run fail in the window after the dumps, its loads refused by CRC).
func TestCheckSourceSchemaChangedSincePlan(t *testing.T) {
	p, _, df, src := rendered(t)
	first := src.Tables()[0]
	tests := []struct {
		name   string
		change string // a delta .df applied to the source's text
		want   string
	}{
		{"an index added", `ADD INDEX "oedlNew" ON "` + first.Name + `"
  INDEX-FIELD "` + first.Fields[0].Name + `" DESCENDING
`, `the source's index "oedlNew" (` + strings.ToLower(first.Fields[0].Name) + ` desc) is missing`},
		{"a sequence added", `ADD SEQUENCE "oedlNextNum"
  INITIAL 1
  INCREMENT 1
`, `has sequences it does not define (oedlNextNum)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			_, err := src.WriteTo(&b)
			require.NoError(t, err)
			text := b.String()
			cut := strings.LastIndex(text, "\n.\nPSC")
			require.Positive(t, cut)
			changed, err := openedge.ParseDF(strings.NewReader(text[:cut+1]+"\n"+tt.change+text[cut+1:]), "src.df")
			require.NoError(t, err)
			err = CheckSource(p, df, changed, "/db/prod")
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// dfBytes is df as written.
func dfBytes(t *testing.T, df *openedge.DF) []byte {
	t.Helper()
	var b bytes.Buffer
	_, err := df.WriteTo(&b)
	require.NoError(t, err)
	return b.Bytes()
}
