package estimate

// The advice of an estimate: the tables that dominate the window, a span
// held by the queue rather than by any table, and plans the model says will
// misbehave. Each names what to change.

import (
	"fmt"
	"math"
	"sort"

	"github.com/oedl/oedl/internal/schedule"
	"github.com/oedl/oedl/internal/units"
)

// dominant names the tables that hold the window back, with what to do
// (performance-model.md §5.5 step 8: a table whose single-stream time is
// more than half the dump+load span needs splitting or threads; a table
// with a large share of the keys is worth its own idxbuild).
func dominant(in *Input, m *Model, est *Estimate) []Advice {
	var dl Seconds
	for _, p := range est.Phases {
		if p.Name == "dump" || p.Name == "load" {
			dl = max(dl, p.End)
		}
	}
	start := Seconds(math.MaxInt64)
	for _, p := range est.Phases {
		if p.Name == "dump" {
			start = p.Start
		}
	}
	span := dl - start
	cc := in.context()
	var totalKeys float64
	keys := map[string]float64{}
	for _, t := range in.Plan.Tables {
		k, _ := m.keys(t.Table, t.Records, cc)
		keys[t.Table] = k
		totalKeys += k
	}
	var out []Advice
	for _, t := range est.Tables {
		// Its own dump and load with the machine to itself: what no amount
		// of parallelism around it can shorten.
		alone := Seconds(aloneDuration(m.work(&schedule.Job{Kind: schedule.KindDump, Table: t.Table, Records: t.Records, Bytes: t.Bytes, Threads: t.Threads}, cc), cc.hw) +
			aloneDuration(m.work(&schedule.Job{Kind: schedule.KindLoad, Table: t.Table, Records: t.Records / int64(max(1, t.Sections)), Bytes: t.Bytes / int64(max(1, t.Sections))}, cc), cc.hw))
		share := float64(alone) / float64(span)
		if span <= 0 || share < 0.5 {
			continue
		}
		var what string
		switch {
		case t.Threads > 1:
			what = fmt.Sprintf("dumps with %d threads and still spans %.0f%% of dump+load: split it with dumpspecified on its leading key into more ranges, and let its sections load side by side (--loads-per-area, own area)", t.Threads, share*100)
		case in.Strategy.DumpThreads > 1:
			what = fmt.Sprintf("spans %.0f%% of dump+load on one stream: give it threads (lower --threaded-dump-min below %s) or split it with dumpspecified", share*100, units.FormatIEC(t.Bytes))
		default:
			what = fmt.Sprintf("spans %.0f%% of dump+load on one stream: give it threads (--dump-threads, needs the source served) or split it with dumpspecified", share*100)
		}
		out = append(out, Advice{Table: t.Table, Share: share, Advice: what})
	}
	if totalKeys > 0 && !in.Strategy.BuildIndexes {
		var names []string
		for n := range keys {
			names = append(names, n)
		}
		sort.Slice(names, func(a, b int) bool {
			if keys[names[a]] != keys[names[b]] {
				return keys[names[a]] > keys[names[b]]
			}
			return names[a] < names[b]
		})
		for _, n := range names {
			share := keys[n] / totalKeys
			if share < 0.3 {
				break
			}
			out = append(out, Advice{Table: n, Share: share, Advice: fmt.Sprintf(
				"holds %.0f%% of the index keys: give it its own index area and its own idxbuild, started as soon as its load ends, in parallel with the rest", share*100)})
		}
	}
	return out
}

// warnings flag plans the model says will misbehave.
func warnings(in *Input, m *Model) []string {
	var w []string
	ix := in.Plan.Idxbuild
	cores := max(1, in.Hardware.Cores)
	if p := ix.Threadnum * max(1, ix.Mergethreads); p > 2*cores {
		w = append(w, fmt.Sprintf("idxbuild -threadnum %d × -mergethreads %d = %d threads on %d cores: oversubscribed, the model slows it down (keep the product below 2 × cores)",
			ix.Threadnum, ix.Mergethreads, p, cores))
	}
	if in.Hardware.MemoryBytes > 0 && ix.TMB > 0 {
		kb := int64(ix.Datascanthreads*ix.TMB) + int64((ix.TMB*ix.TM+ix.TMB)*max(1, ix.Mergethreads)*max(1, ix.Threadnum))
		tf := float64(in.Hardware.MemoryBytes) * float64(max(ix.TF, 0)) / 100
		if need := float64(kb<<10) + tf; need > float64(in.Hardware.MemoryBytes) {
			w = append(w, fmt.Sprintf("idxbuild memory (KB 000037016 formula) is %s, more than the %s of RAM: it may fail to start its helper threads",
				units.FormatIEC(int64(need)), units.FormatIEC(in.Hardware.MemoryBytes)))
		}
	}
	return w
}
