package estimate

import (
	"math"
	"strconv"

	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/plan"
	"github.com/oedl/oedl/internal/schedule"
)

// A load's before-image notes and checkpoints are priced with the model
// oesim charges (openedge.LoadLog), so that what -i, a larger BI cluster,
// the BI writer or the page writers gain in a run is what the estimate
// weighs. The model's load phase (Model.Load) is a load as calibrate
// measures it: single-user, crash-safe, OpenEdge's default BI (8 KiB
// blocks, 512 KiB clusters) and -B; its measured traffic holds that
// load's BI writes. A load of the run is priced as that, plus what
// LoadLog says its own mode writes beyond (or short of) the calibrated
// one.

// calibratedLogging is the mode of the loads calibrate measures.
func calibratedLogging(blockBytes int64) openedge.LoadLogging {
	return openedge.LoadLogging{BlockBytes: blockBytes}
}

// runLogging is the mode of the run's loads, as oedl run sets it
// (run/loadserve.go): the plan's BI before the loads and, on a served
// target, target.pf's -B with the plan's helpers; -i with NoIntegrity.
func runLogging(p *plan.Plan, s Strategy) openedge.LoadLogging {
	c := calibratedLogging(int64(p.BlockSize))
	if s.NoIntegrity {
		c.Integrity = openedge.NoIntegrity
	}
	served := schedule.Served(s.LoadJobs)
	if served {
		c.Buffers = openedge.DefaultBuffersMultiUser
	}
	if s.UntunedTarget {
		return c
	}
	c.BIBlockBytes, c.BIClusterBytes = int64(p.BI.BlockSizeKB)*1024, int64(p.BI.ClusterSizeKB)*1024
	if !served {
		return c
	}
	for _, x := range p.Startup {
		if b, err := strconv.ParseInt(x.Value, 10, 64); x.Name == "-B" && err == nil && b > 0 {
			c.Buffers = b
		}
	}
	for _, x := range p.Processes {
		c.BIW = c.BIW || x.Name == "probiw"
		c.APW = c.APW || x.Name == "proapw"
	}
	return c
}

// addLoadLogging adds to a load's stream what its mode writes beyond the
// calibrated load's, by pattern: written behind, BI blocks and data blocks
// waited for one by one.
func (cc *costContext) addLoadLogging(f *flowDemand, records, bytes float64) {
	if cc.loadLog == cc.calibratedLog {
		return
	}
	run := openedge.LoadLogWrites(cc.loadLog, records, bytes)
	base := openedge.LoadLogWrites(cc.calibratedLog, records, bytes)
	f.add(ioShape{write: run.Sequential - base.Sequential}, &cc.disk)
	f.add(waitedBlocks(run.BIWaits, cc.loadLog.BIBlockBytes, openedge.DefaultBIBlockBytes), &cc.disk)
	f.add(waitedBlocks(-base.BIWaits, cc.calibratedLog.BIBlockBytes, openedge.DefaultBIBlockBytes), &cc.disk)
	f.add(flushes(run), &cc.disk)
	if b := flushes(base); b.write > 0 {
		b.write = -b.write
		f.add(b, &cc.disk)
	}
	// The calibrated traffic may hold less than the model says it does
	// (priors, another disk): nothing goes below none.
	f.bytes, f.ops, f.waits = math.Max(0, f.bytes), math.Max(0, f.ops), math.Max(0, f.waits)
}

// flushes are a load's waited writes of its modified blocks, as random
// requests of their mean size.
func flushes(w openedge.LoadWrites) ioShape {
	if w.Flushes <= 0 {
		return ioShape{}
	}
	return ioShape{write: w.FlushedBytes, writeRandom: 1, randomKB: w.FlushedBytes / w.Flushes / 1024}
}

// waitedBlocks is n writes of a block of size bytes (def when not set),
// each waited for.
func waitedBlocks(n float64, size, def int64) ioShape {
	if size <= 0 {
		size = def
	}
	return ioShape{write: n * float64(size), writeRandom: 1, randomKB: float64(size) / 1024}
}
