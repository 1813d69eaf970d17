package estimate

import (
	"strings"
	"testing"

	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/schedule"
	"github.com/stretchr/testify/assert"
)

// TestWordIndexKeysPerWord: a WORD index holds a key per word of its
// field, so a rebuild of a table with one sorts many keys per record, not
// one (oesim's sports Customer: 16.6 keys a record over 5 indexes; its
// area took 4.5 s of a 21 s rebuild priced as a third of that). The key
// work of idxbuild is its CPU per key: checked through the job's CPU.
func TestWordIndexKeysPerWord(t *testing.T) {
	m := DefaultModel()
	m.Hardware = Hardware{Cores: 2, DiskMBps: 100}
	m.Idxbuild.PhaseCost = PhaseCost{}
	m.Idxbuild.CPUPerKeyUs, m.Idxbuild.ThreadPenalty = 1, 0
	tests := []struct {
		name         string
		wordKeyBytes float64
		table        plan.Placement
		wantKeys     float64
	}{
		{"no word index: one key per index a record", 12,
			plan.Placement{Table: "PUB.OrderLine", Records: 1000, Bytes: 39_000, MeanRecord: 39, Indexes: 3}, 3000},
		{"a word index: a key per 12 bytes of record", 12,
			plan.Placement{Table: "PUB.Customer", Records: 1000, Bytes: 240_000, MeanRecord: 240, Indexes: 5, WordIndexes: 1}, 1000 * (4 + 20)},
		{"two word indexes", 12,
			plan.Placement{Table: "PUB.Item", Records: 1000, Bytes: 300_000, MeanRecord: 300, Indexes: 5, WordIndexes: 2}, 1000 * (3 + 2*25)},
		{"records shorter than a word: still a key each", 12,
			plan.Placement{Table: "PUB.Tag", Records: 1000, Bytes: 6_000, MeanRecord: 6, Indexes: 2, WordIndexes: 1}, 2000},
		{"calibrations without the figure: one key a record", 0,
			plan.Placement{Table: "PUB.Customer", Records: 1000, Bytes: 240_000, MeanRecord: 240, Indexes: 5, WordIndexes: 1}, 5000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m.Idxbuild.WordKeyBytes = tt.wordKeyBytes
			cc := newCostContext(m.Hardware)
			p := tt.table
			cc.tables = map[string]*plan.Placement{strings.ToLower(p.Table): &p}
			cc.list = []*plan.Placement{&p}
			w := m.work(&schedule.Job{Kind: schedule.KindIdxbuild, Records: p.Records, Bytes: p.Bytes}, cc)
			assert.InDelta(t, tt.wantKeys*1e-6, w.flows[0].cpu, 1e-12)
		})
	}
}
