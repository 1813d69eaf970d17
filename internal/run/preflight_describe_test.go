package run

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/poststeps"
)

// TestCompareDescriptions: each figure the seed says to compare is, when
// source and target differ, a note when the plan decided it, a warning
// when --allow-change names it, and a refusal naming both values
// otherwise; equal figures say nothing; a code page describe did not
// print is a warning to compare it by hand, never a silent pass.
func TestCompareDescriptions(t *testing.T) {
	src := openedge.Description{BlockSize: 8192, BIBlockSize: 8192, BIClusterKB: 512, Codepage: "ISO8859-1"}
	empty := openedge.Description{BlockSize: 8192, BIBlockSize: 8192, BIClusterKB: 512, Codepage: "ISO8859-1"}
	samePlan := func() *plan.Plan {
		return &plan.Plan{Source: plan.Source{BlockSize: 8192}, BlockSize: 8192}
	}
	tests := []struct {
		name  string
		src   func(*openedge.Description)
		empty func(*openedge.Description)
		plan  func(*plan.Plan)
		allow []string

		notes, warnings, refusals []string
	}{
		{name: "all equal"},
		{name: "codepage refused", src: func(d *openedge.Description) { d.Codepage = "UTF-8" },
			refusals: []string{"codepage: source UTF-8, target ISO8859-1 (the codepage of /dlc/empty8, which procopy gives it); give --allow-change codepage if that is intended"}},
		{name: "codepage allowed", src: func(d *openedge.Description) { d.Codepage = "UTF-8" }, allow: []string{ChangeCodepage},
			warnings: []string{"codepage: source UTF-8, target ISO8859-1 (the codepage of /dlc/empty8, which procopy gives it): --allow-change codepage"}},
		{name: "codepage allowance for another figure does not let it through", src: func(d *openedge.Description) { d.Codepage = "UTF-8" },
			allow:    []string{ChangeBlockSize, ChangeBIBlockSize, ChangeBIClusterSize},
			refusals: []string{"codepage: source UTF-8, target ISO8859-1 (the codepage of /dlc/empty8, which procopy gives it); give --allow-change codepage if that is intended"}},
		{name: "codepage not printed by the source's release", src: func(d *openedge.Description) { d.Codepage = "" },
			warnings: []string{`codepage: describe does not print it (source "", /dlc/empty8 "ISO8859-1", before OpenEdge 12): compare them by hand (DBCODEPAGE)`}},
		{name: "codepage not printed by the target's release", empty: func(d *openedge.Description) { d.Codepage = "" },
			warnings: []string{`codepage: describe does not print it (source "ISO8859-1", /dlc/empty8 "", before OpenEdge 12): compare them by hand (DBCODEPAGE)`}},
		{name: "block size planned from this source", plan: func(p *plan.Plan) { p.BlockSize = 4096 },
			notes: []string{"database block size: source 8192, target 4096 (plan.json block_size)"}},
		{name: "block size of a plan made from another source refused", plan: func(p *plan.Plan) { p.Source.BlockSize = 4096; p.BlockSize = 4096 },
			refusals: []string{"database block size: source 8192, target 4096 (plan.json block_size); give --allow-change blocksize if that is intended"}},
		{name: "block size allowed", plan: func(p *plan.Plan) { p.Source.BlockSize = 4096; p.BlockSize = 4096 }, allow: []string{ChangeBlockSize},
			warnings: []string{"database block size: source 8192, target 4096 (plan.json block_size): --allow-change blocksize"}},
		{name: "block size defaulted (no plan block size) refused", src: func(d *openedge.Description) { d.BlockSize = 4096 }, plan: func(p *plan.Plan) { p.Source.BlockSize = 4096; p.BlockSize = 0 },
			refusals: []string{"database block size: source 4096, target 8192 (plan.json block_size); give --allow-change blocksize if that is intended"}},
		{name: "BI block size planned", plan: func(p *plan.Plan) { p.BI.BlockSizeKB = 16 },
			notes: []string{"BI block size: source 8192, target 16384 (plan.json bi.block_size_kb)"}},
		{name: "BI block size of the empty database refused", src: func(d *openedge.Description) { d.BIBlockSize = 16384 },
			refusals: []string{"BI block size: source 16384, target 8192 (the empty database's); give --allow-change biblocksize if that is intended"}},
		{name: "BI block size allowed", src: func(d *openedge.Description) { d.BIBlockSize = 16384 }, allow: []string{ChangeBIBlockSize},
			warnings: []string{"BI block size: source 16384, target 8192 (the empty database's): --allow-change biblocksize"}},
		{name: "BI cluster size planned", plan: func(p *plan.Plan) { p.BI.ClusterSizeKB = 16384 },
			notes: []string{"BI cluster size (KB): source 512, target 16384 (plan.json bi.cluster_size_kb)"}},
		{name: "BI cluster size of the empty database refused", src: func(d *openedge.Description) { d.BIClusterKB = 1024 },
			refusals: []string{"BI cluster size (KB): source 1024, target 512 (the empty database's); give --allow-change biclustersize if that is intended"}},
		{name: "BI cluster size allowed", src: func(d *openedge.Description) { d.BIClusterKB = 1024 }, allow: []string{ChangeBIClusterSize},
			warnings: []string{"BI cluster size (KB): source 1024, target 512 (the empty database's): --allow-change biclustersize"}},
		{name: "every figure refused at once, each named",
			src:  func(d *openedge.Description) { d.Codepage = "UTF-8"; d.BIBlockSize = 16384; d.BIClusterKB = 1024 },
			plan: func(p *plan.Plan) { p.Source.BlockSize = 4096; p.BlockSize = 4096 },
			refusals: []string{
				"codepage: source UTF-8, target ISO8859-1 (the codepage of /dlc/empty8, which procopy gives it); give --allow-change codepage if that is intended",
				"database block size: source 8192, target 4096 (plan.json block_size); give --allow-change blocksize if that is intended",
				"BI block size: source 16384, target 8192 (the empty database's); give --allow-change biblocksize if that is intended",
				"BI cluster size (KB): source 1024, target 512 (the empty database's); give --allow-change biclustersize if that is intended",
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, e, p := src, empty, samePlan()
			if tt.src != nil {
				tt.src(&s)
			}
			if tt.empty != nil {
				tt.empty(&e)
			}
			if tt.plan != nil {
				tt.plan(p)
			}
			notes, warnings, refusals := compareDescriptions(s, e, "/dlc/empty8", p, tt.allow)
			assert.Equal(t, tt.notes, notes, "notes")
			assert.Equal(t, tt.warnings, warnings, "warnings")
			assert.Equal(t, tt.refusals, refusals, "refusals")
		})
	}
}

// TestWritePostSteps: the post steps the run writes follow what describe
// said of the source: after-imaging and replication apply only when the
// source had them, and are "not known" when it was not described.
func TestWritePostSteps(t *testing.T) {
	p := &plan.Plan{Tables: []plan.Placement{{Table: "PUB.Customer"}, {Table: "PUB.Order"}}}
	tests := []struct {
		name              string
		described         *describeCheck
		ai, repl, unknown bool
	}{
		{"plain source", &describeCheck{source: fakeDescription}, false, false, false},
		{"after-imaging", &describeCheck{source: openedge.Description{AIBlockSize: 8192}}, true, false, false},
		{"replication source", &describeCheck{source: openedge.Description{AIBlockSize: 8192,
			Features: []openedge.Feature{{ID: openedge.FeatureReplication, Name: "OpenEdge Replication", Active: "Yes"}}}}, true, true, false},
		{"not described (across hosts)", nil, false, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			work := t.TempDir()
			r := &runner{cfg: &Config{DLC: "/dlc", Target: "/db/t", Work: work, Plan: p}, described: tt.described}
			require.NoError(t, r.writePostSteps())
			steps, err := poststeps.Read(work)
			require.NoError(t, err)
			require.Len(t, steps, 3)
			got := map[string]poststeps.Step{}
			for _, s := range steps {
				got[s.Name] = s
			}
			assert.Equal(t, tt.ai, got[poststeps.StepAfterImaging].Applies)
			assert.Equal(t, tt.repl, got[poststeps.StepReplication].Applies)
			assert.True(t, got[poststeps.StepStatistics].Applies)
			assert.Equal(t, tt.unknown, strings.HasPrefix(got[poststeps.StepAfterImaging].Why, "not known"), got[poststeps.StepAfterImaging].Why)
			sql, err := os.ReadFile(filepath.Join(work, poststeps.StatisticsFile))
			require.NoError(t, err)
			assert.Contains(t, string(sql), `FOR "PUB"."Order";`)
		})
	}
}
