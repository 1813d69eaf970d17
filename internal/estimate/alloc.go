package estimate

import (
	"math"
	"sort"
)

// allocate shares the machine between the streams that run at the same
// time and returns each stream's progress rate (fraction of its work per
// second).
//
// Two things are shared: the cores, and the disk. A serial disk (the
// default, oesim's virtual disk, a spinning disk) serves one request at a
// time and a request of b bytes costs b/MBps + 1/IOPS of its time; a disk
// with independent ceilings (a provisioned cloud volume, an SSD) is
// limited by MB/s and by IOPS separately. Either way both ceilings count
// and a mix of large and small requests is charged for both
// (performance-model.md §1.1). A third thing is shared by the loads
// only: the target database's schema lock, which each table's index
// deactivation holds (one stream at a time, however many cores). The
// ceilings are the disk's with or without burst credits (credit). A stream runs its CPU work and its I/O one
// after the other (a proutil stream waits for each read), so alone it
// needs cpu + disk time, where its disk time is at least the requests it
// waits for × the device latency; a multi-threaded job (idxbuild) overlaps
// the two, and needs the larger of cpu/threads and disk time / requests
// in flight.
//
// Each resource is shared max-min fairly among the streams that use it, the
// way an OS scheduler and a block device queue share them: a stream that
// wants less than an equal share gets what it wants and the rest goes to
// the others. What a stream wants of one resource is set by the other and
// by its own ceiling; the shares are found by iterating to the fixed point.
// The result is work-conserving: two disk-bound jobs on one 100 MB/s disk
// finish after the sum of their bytes / 100 MB/s, whatever their sizes.
func allocate(flows []*flowDemand, cores int, d *disk, credit bool) []float64 {
	// Resources: cores, then the disk as one serial device (time), or as
	// two independent ceilings (share of MB/s, share of IOPS), then the
	// target database's schema lock (held by one stream at a time).
	const nres = 4
	caps := [nres]float64{float64(cores), 1, 1, 1}
	iops, mbps := d.ceilings(credit)
	n := len(flows)
	limit := make([]float64, n)
	demand := make([][nres]float64, n)
	bound := make([][nres]float64, n) // rate each resource allows the stream
	queued := queuedAhead(flows, d, iops, mbps)
	for i, f := range flows {
		disk := diskSeconds(f, d.serial, iops, mbps)
		// The schema update computes while it holds the lock (oesim
		// decodes and rewrites its schema): a core and the lock at once.
		demand[i] = [nres]float64{f.cpu + f.schema, disk, 0, f.schema}
		if !d.serial {
			demand[i][1], demand[i][2] = 0, 0
			if mbps > 0 {
				demand[i][1] = f.bytes / (mbps * 1e6)
			}
			if iops > 0 {
				demand[i][2] = f.ops / iops
			}
		}
		// Alone: CPU and I/O in turn, the I/O no faster than the latency
		// lets the requests the stream waits for go.
		wait := disk
		if d.latencyMs > 0 && f.waits > 0 {
			wait = math.Max(wait, f.waits*d.latencyMs/1000/math.Max(1, f.qd))
		}
		// Each request it waits for is served after what the other
		// streams queued before it (queuedAhead): waiting, not device
		// time of its own.
		wait += f.waits * queued[i] / math.Max(1, f.qd)
		// A single stream computes and waits in turn; threads overlap the
		// two, as much as f.overlap says (idxbuild's phases: the scan
		// overlaps, the sort does not).
		// The schema lock is held before the records go, in turn with both.
		cpu := f.cpu / math.Max(1, f.par)
		alone := math.Max(wait, cpu) + (1-f.overlap)*math.Min(wait, cpu) + f.schema
		limit[i] = math.Inf(1)
		if alone > 0 {
			limit[i] = 1 / alone
		}
		for k := range bound[i] {
			bound[i][k] = math.Inf(1)
		}
	}
	// otherBound is the rate the stream could reach if resource k were free.
	otherBound := func(i, k int) float64 {
		r := limit[i]
		for kk := range nres {
			if kk != k {
				r = math.Min(r, bound[i][kk])
			}
		}
		return r
	}
	wants := make([]float64, 0, n)
	users := make([]int, 0, n)
	next := make([][nres]float64, n)
	for iter := 0; iter < 200; iter++ {
		for k := range nres {
			users, wants = users[:0], wants[:0]
			for i := range flows {
				next[i][k] = math.Inf(1)
				if demand[i][k] > 0 {
					users = append(users, i)
					wants = append(wants, otherBound(i, k)*demand[i][k])
				}
			}
			for u, got := range waterFill(wants, caps[k]) {
				next[users[u]][k] = got / demand[users[u]][k]
			}
		}
		changed := false
		for i := range flows {
			for k := range nres {
				a, b := bound[i][k], next[i][k]
				if a != b && !(math.IsInf(a, 1) && math.IsInf(b, 1)) && math.Abs(a-b) > 1e-12*math.Max(math.Abs(a), math.Abs(b)) {
					changed = true
				}
			}
			bound[i] = next[i]
		}
		if !changed {
			break
		}
	}
	rates := make([]float64, n)
	for i := range flows {
		rates[i] = otherBound(i, -1)
	}
	return rates
}

// waterFill shares capacity among wants max-min fairly: wants below the
// equal share are met, the rest split what is left. Infinite wants are
// allowed; an infinite capacity meets every want.
func waterFill(wants []float64, capacity float64) []float64 {
	got := make([]float64, len(wants))
	if math.IsInf(capacity, 1) {
		copy(got, wants)
		return got
	}
	order := make([]int, len(wants))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return wants[order[a]] < wants[order[b]] })
	left, n := capacity, len(wants)
	for _, i := range order {
		share := left / float64(n)
		if wants[i] <= share {
			got[i] = wants[i]
			left -= wants[i]
		} else {
			got[i] = share
			left -= share
		}
		n--
	}
	return got
}

// diskSeconds is the time a stream's I/O takes with the disk to itself.
// On a serial device it is its bytes at the throughput ceiling plus its
// requests at the IOPS ceiling; with independent ceilings, the larger of
// the two. A ceiling of 0 costs nothing.
func diskSeconds(f *flowDemand, serial bool, iops, mbps float64) float64 {
	var b, o float64
	if mbps > 0 {
		b = f.bytes / (mbps * 1e6)
	}
	if iops > 0 {
		o = f.ops / iops
	}
	if !serial {
		return math.Max(b, o)
	}
	return b + o
}

// queuedAhead is, per stream, the device seconds a request it waits for
// spends queued behind the other streams' requests. A device serves its
// queue in arrival order (a serial one, and an SSD's or a volume's queue
// alike): each other stream doing I/O has about one request queued, which
// holds the device for its own service time (its device seconds per
// operation), at most d.queueMs (a streaming request is cut at the
// device's largest), and is there as often as that stream is doing I/O
// rather than computing. Max-min sharing alone serves a stream that asks
// little of the disk at once: a batch of tiny tables, whose commits and
// .bd reads each wait, was forecast at a second where it took ten beside
// fifty streams (docs/benchmarks/run.md, "FIFO").
func queuedAhead(flows []*flowDemand, d *disk, iops, mbps float64) []float64 {
	out := make([]float64, len(flows))
	if d.queueMs <= 0 {
		return out
	}
	hold := make([]float64, len(flows))
	var all float64
	for i, f := range flows {
		disk := diskSeconds(f, d.serial, iops, mbps)
		if disk <= 0 || f.ops <= 0 {
			continue
		}
		perOp := math.Min(d.queueMs/1000, disk/f.ops)
		busy := disk / (disk + f.cpu/math.Max(1, f.par) + f.schema)
		hold[i] = perOp * busy
		all += hold[i]
	}
	for i := range flows {
		out[i] = math.Max(0, all-hold[i])
	}
	return out
}
