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
// measures it: crash-safe, into a scratch served by a bare proserve
// (calibrate.go, step 3), so OpenEdge's default BI (8 KiB blocks, 512 KiB
// clusters), the served default -B and no helper; its measured traffic
// holds that load's BI writes. A load of the run is priced as that, plus
// what LoadLog says its own mode writes beyond (or short of) the
// calibrated one.

// calibratedLogging is the mode of the loads calibrate measures.
func calibratedLogging(blockBytes int64) openedge.LoadLogging {
	return openedge.LoadLogging{BlockBytes: blockBytes, Buffers: openedge.DefaultBuffersMultiUser}
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
	if !served {
		c.Buffers = openedge.DefaultBuffersSingle
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
// calibrated load's, by pattern: written behind, and written while the
// loader waits (its BI blocks, its checkpoints' flushes). The calibrated
// load's waited writes are in its measured traffic as random writes of
// measured's request size (PhaseCost.shape), so what the run waits for
// less comes out of them as they went in, no more than the measured
// random writes (the rest of those bytes, if anywhere, are among the
// writes behind: the priors' traffic holds no BI). Taken out as the
// requests they are in oesim (a flush is one request of everything
// modified), a 474 KiB flush counted as 59 requests of 8 KiB left 58 of
// them in every checkpoint of a tuned run's load, which waits for none,
// and on 1000 IOPS seed003's single loads were forecast 1.7 times what
// they took (docs/benchmarks/eta.md, i14-reg). What the run waits for
// more is added as its own requests.
func (cc *costContext) addLoadLogging(f *flowDemand, records, bytes float64, measured ioShape) {
	if cc.loadLog == cc.calibratedLog {
		return
	}
	run := openedge.LoadLogWrites(cc.loadLog, records, bytes)
	base := openedge.LoadLogWrites(cc.calibratedLog, records, bytes)
	f.add(ioShape{write: run.Sequential - base.Sequential}, &cc.disk)
	runWaited := waitedBytes(run, cc.loadLog)
	switch more := runWaited - waitedBytes(base, cc.calibratedLog); {
	case more > 0:
		size := runWaited / (run.BIWaits + run.Flushes)
		f.add(ioShape{write: more, writeRandom: 1, randomKB: size / 1024}, &cc.disk)
	case more < 0:
		random := math.Min(-more, measured.write*measured.writeRandom)
		f.add(ioShape{write: -random, writeRandom: 1, randomKB: measured.randomKB}, &cc.disk)
		f.add(ioShape{write: random + more}, &cc.disk)
	}
	// The calibrated traffic may hold less than the model says it does
	// (priors, another disk): nothing goes below none.
	f.bytes, f.ops, f.waits = math.Max(0, f.bytes), math.Max(0, f.ops), math.Max(0, f.waits)
}

// waitedBytes are the bytes a load of mode c writes and waits for: its
// BI blocks and its flushes.
func waitedBytes(w openedge.LoadWrites, c openedge.LoadLogging) float64 {
	block := c.BIBlockBytes
	if block <= 0 {
		block = openedge.DefaultBIBlockBytes
	}
	return w.BIWaits*float64(block) + w.FlushedBytes
}

// addMemberWaits adds to a batch's stream what each of its tables after
// the first waits for on its own (the load phase is priced per call: one
// table's, whose own are in its measured traffic): the first block of its
// .bd, read before its records go, and its commit (openedge.LoadLog.End):
// its last BI block forced out (crash-safe) and, with no page writer, its
// modified blocks flushed (their bytes are in the data already: one more
// request). Few bytes, but each one a request the loader waits for, and
// beside other streams each is served after their queued requests
// (allocate, queuedAhead): a batch of 32 tiny tables is 64 to 96 of them.
func (cc *costContext) addMemberWaits(f *flowDemand, j *schedule.Job, log openedge.LoadLogging) {
	if j.Kind != schedule.KindLoadBatch || len(j.Members) < 2 {
		return
	}
	one := cc.memberWaits(log)
	n := float64(len(j.Members) - 1)
	f.bytes += n * one.bytes
	f.ops += n * one.ops
	f.waits += n * one.waits
}

// memberWaits is what one table of a batch beyond the first waits for
// (addMemberWaits), as a stream of its own.
func (cc *costContext) memberWaits(log openedge.LoadLogging) flowDemand {
	var f flowDemand
	f.add(ioShape{read: cc.dstKB * 1024, readRandom: 1, randomKB: cc.dstKB}, &cc.disk)
	if log.Integrity == openedge.CrashSafe {
		bi := log.BIBlockBytes
		if bi <= 0 {
			bi = openedge.DefaultBIBlockBytes
		}
		f.add(ioShape{write: float64(bi), writeRandom: 1, randomKB: float64(bi) / 1024}, &cc.disk)
		if !log.APW {
			f.ops++
			f.waits++
		}
	}
	return f
}
