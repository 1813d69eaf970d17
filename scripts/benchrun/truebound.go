package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"

	"github.com/oedl/oedl/internal/journal"
	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/run"
	"github.com/oedl/oedl/internal/truebound"
)

// trueBound is the bound any schedule meets, from the costs oedl's run in
// work measured, on a disk of mbps MiB/s (the bytes the method moves and
// each job's floor, package truebound's doc), and the utilities' CPU over
// this machine's cores; the target's fixed extents (planDir's target.st)
// are what its creation writes, unless the target was prepared before the
// window (oedl prepare): then its creation is not in the window's bound.
func trueBound(work, planDir string, p *plan.Plan, mbps float64, prepared bool) (truebound.Bound, error) {
	recs, err := journal.Read(filepath.Join(work, journal.FileName))
	if err != nil {
		return truebound.Bound{}, err
	}
	in := truebound.FromJournal(recs, truebound.Planned(p))
	in.DiskBytesPerSec = mbps * (1 << 20)
	in.Prepared = prepared
	f, err := os.Open(filepath.Join(planDir, "target.st"))
	if err != nil {
		return truebound.Bound{}, err
	}
	defer f.Close()
	st, err := openedge.ParseStructure(f, f.Name())
	if err != nil {
		return truebound.Bound{}, err
	}
	for _, a := range st.Areas {
		for _, e := range a.Extents {
			if e.Fixed {
				in.TargetBytes += e.SizeKB << 10
			}
		}
	}
	var ru run.Rusage
	if data, err := os.ReadFile(filepath.Join(work, run.RusageFile)); err == nil {
		_ = json.Unmarshal(data, &ru)
	}
	in.CPU, in.Cores = ru.ChildrenUser+ru.ChildrenSys, runtime.NumCPU()
	return truebound.Compute(in), nil
}
