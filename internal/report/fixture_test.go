package report

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/verify"
)

var t0 = time.Date(2026, 11, 22, 1, 0, 0, 0, time.UTC)

// fixtureTables is a small sports-like database: one big table that holds
// the finish back, a few medium ones, a tiny one.
var fixtureTables = []struct {
	name    string
	records int64
	bytes   int64
	area    string
	dump    float64 // seconds
	load    float64
}{
	{"PUB.orderline", 1_200_000, 180 << 20, "Data_Large", 95, 120},
	{"PUB.order", 300_000, 40 << 20, "Data_Medium", 22, 30},
	{"PUB.customer", 50_000, 12 << 20, "Data_Medium", 8, 11},
	{"PUB.item", 12_000, 3 << 20, "Data_Small", 3, 4},
	{"PUB.salesrep", 90, 16 << 10, "Data_Small", 0.4, 0.6},
}

// fixture writes a work directory of a finished run: journal.jsonl,
// plan.json and verify.json. With failLoad, PUB.order's first load fails
// and its retry goes through; with mismatch, verify finds a lost record.
func fixture(t testing.TB, failLoad, mismatch bool) string {
	t.Helper()
	dir := t.TempDir()
	p := &plan.Plan{Version: plan.PlanVersion, Source: plan.Source{Database: "sports"}}
	for _, ft := range fixtureTables {
		p.Tables = append(p.Tables, plan.Placement{Table: ft.name, Records: ft.records, Bytes: ft.bytes, DataArea: ft.area})
		p.Totals.Records += ft.records
		p.Totals.Bytes += ft.bytes
	}
	var buf bytes.Buffer
	require.NoError(t, plan.WriteJSON(&buf, p))
	require.NoError(t, os.WriteFile(filepath.Join(dir, PlanFile), buf.Bytes(), 0o644))

	var recs []journal.Record
	seq := int64(0)
	add := func(sec float64, r journal.Record) {
		seq++
		r.V, r.Seq, r.Time = journal.Version, seq, t0.Add(time.Duration(sec*float64(time.Second)))
		recs = append(recs, r)
	}
	job := func(start, end float64, id, kind, table, area string, fail string, attempt int) {
		add(start, journal.Record{Job: id, Kind: kind, Table: table, Area: area, State: journal.Started, Attempt: attempt})
		if fail != "" {
			add(end, journal.Record{Job: id, Kind: kind, Table: table, Area: area, State: journal.Failed, Attempt: attempt,
				Err: fail, Log: "/work/logs/" + id + ".log"})
			return
		}
		add(end, journal.Record{Job: id, Kind: kind, Table: table, Area: area, State: journal.Done, Attempt: attempt,
			Elapsed: time.Duration((end - start) * float64(time.Second))})
	}
	// What the estimate of its graph said before it started.
	sec := func(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
	add(0, journal.Record{Job: journal.RunJob, State: journal.Started, Source: "/db/sports", Target: "/new/sports",
		Settings: map[string]int64{"dump_jobs": 1, "load_jobs": 1},
		Estimate: &event.Estimate{Window: sec(420), P50: sec(425), P90: sec(505), Model: "the calibration cal.json", Phases: []event.PhaseEstimate{
			{Phase: "preflight", Start: 0, End: sec(1)}, {Phase: "dump+load", Start: sec(1), End: sec(290)},
			{Phase: "idxbuild", Start: sec(292), End: sec(392)}, {Phase: "verify", Start: sec(392), End: sec(414)},
			{Phase: "post", Start: sec(414), End: sec(420)}}}})
	job(0, 1.5, "preflight", "preflight", "", "", "", 1)
	job(1.5, 9, "create-target", "create-target", "", "", "", 1)
	job(1.5, 40, "analyze-source", "analyze-source", "", "", "", 1)
	job(40, 41, "dump-df", "dump-df", "", "", "", 1)
	job(41, 42, "dump-sequences", "dump-sequences", "", "", "", 1)
	job(42, 43, "load-sequences", "load-sequences", "", "", "", 1)
	// Dumps one after another (one dump slot), largest first; each load as
	// soon as its dump is there and the load slot is free.
	clock, loadFree := 42.0, 42.0
	for _, ft := range fixtureTables {
		end := clock + ft.dump
		job(clock, end, "dump:"+ft.name, "dump", ft.name, "", "", 1)
		ls := max(end, loadFree)
		if failLoad && ft.name == "PUB.order" {
			job(ls, ls+7, "load:"+ft.name, "load", ft.name, ft.area, "exit status 1: (6256) not found; ** Insufficient disk space", 1)
			ls += 8
			job(ls, ls+ft.load, "load:"+ft.name, "load", ft.name, ft.area, "", 2)
		} else {
			job(ls, ls+ft.load, "load:"+ft.name, "load", ft.name, ft.area, "", 1)
		}
		loadFree = ls + ft.load
		clock = end
	}
	job(loadFree, loadFree+90, "idxbuild", "idxbuild", "", "", "", 1)
	job(loadFree+90, loadFree+110, "analyze-target", "analyze-target", "", "", "", 1)
	job(loadFree+110, loadFree+111, "verify", "verify", "", "", "", 1)
	job(loadFree+111, loadFree+112, "post", "post", "", "", "", 1)
	add(loadFree+112, journal.Record{Job: journal.RunJob, State: journal.Done, Message: "verified"})

	var jl bytes.Buffer
	for _, r := range recs {
		b, err := jsonLine(r)
		require.NoError(t, err)
		jl.Write(b)
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, journal.FileName), jl.Bytes(), 0o644))

	var before, after verify.Side
	for _, ft := range fixtureTables {
		before.Tables = append(before.Tables, verify.Count{Table: ft.name, Records: ft.records})
		n := ft.records
		if mismatch && ft.name == "PUB.customer" {
			n--
		}
		after.Tables = append(after.Tables, verify.Count{Table: ft.name, Records: n})
		before.Records += ft.records
		after.Records += n
	}
	require.NoError(t, verify.Write(dir, verify.Compare(before, after)))
	return dir
}

func jsonLine(r journal.Record) ([]byte, error) {
	b, err := jsonMarshal(r)
	if err != nil {
		return nil, fmt.Errorf("record %d: %w", r.Seq, err)
	}
	return append(b, '\n'), nil
}
