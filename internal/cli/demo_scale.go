package cli

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/oedl/oedl/internal/execx"
	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/units"
)

// The demo's database is a few megabytes, so with oedl plan's production
// thresholds (--large 1GB, --medium 100MB) every table would be "small"
// and the demo would never show the decisions a DBA cares about. The demo
// scales the thresholds to the database it generated instead: the same
// rules, at the same proportions a mid-sized production database has.
const (
	demoLargeShare  = 0.05  // own area, BPC 512: tables of at least 5% of the data
	demoMediumShare = 0.005 // medium pools, BPC 64: at least 0.5%
)

// demoThresholds are the sizes the demo plans and runs with.
type demoThresholds struct {
	Total    int64 // bytes of records in the source (its tabanalys)
	Large    int64
	Medium   int64
	Threaded int64 // dump tables this large with -thread 1: the large ones
}

func (d demoThresholds) String() string {
	return fmt.Sprintf("%s of records: --large %s (5%%, own area, BPC 512), --medium %s (0.5%%, BPC 64), threaded dumps from %s",
		units.FormatIEC(d.Total), units.FormatIEC(d.Large), units.FormatIEC(d.Medium), units.FormatIEC(d.Threaded))
}

// scaleThresholds derives the demo's thresholds from the source's total
// record bytes (floors keep a tiny database from making every table large).
func scaleThresholds(total int64) demoThresholds {
	large := max(int64(float64(total)*demoLargeShare), 64<<10)
	medium := max(int64(float64(total)*demoMediumShare), 8<<10)
	return demoThresholds{Total: total, Large: large, Medium: medium, Threaded: large}
}

// demoSourceSize runs the source's tabanalys (as oedl plan does) and
// returns the bytes of its records.
func demoSourceSize(ctx context.Context, r execx.Runner, dlc, db string) (int64, error) {
	proutil := filepath.Join(dlc, "bin", "proutil")
	res, err := r.Run(ctx, execx.Cmd{Path: proutil, Args: openedge.TabanalysArgs(db, false, ""), Env: []string{"DLC=" + dlc}})
	if err != nil {
		return 0, fmt.Errorf("proutil %s -C tabanalys: %w\n%s", db, err, tail(res.Output))
	}
	a, err := openedge.ParseAnalysis(strings.NewReader(res.Output), db+" (proutil -C tabanalys)")
	if err != nil {
		return 0, err
	}
	var total int64
	for _, t := range a.Tables {
		if !t.System() {
			total += t.Bytes
		}
	}
	return total, nil
}
