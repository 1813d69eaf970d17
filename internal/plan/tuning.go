package plan

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/oedl/oedl/internal/units"
)

// idxbuild constants. -TB and -TM are at their documented maxima (64 since
// 10.2B06, 32); -TMB is the smallest value allowed (it may not be below
// -TB), because seed 003's parameter sweep was fastest with the smallest
// -TMB (4m02s with 64 against 6m26s with 4096, same threads). -SG 64 is the
// common practitioner value. idxbuild sorts in its own buffers, so its -B
// stays small (512, as in every seed 003 run) and the memory goes to -TF.
const (
	idxTB      = 64
	idxTM      = 32
	idxTMB     = idxTB
	idxSG      = 64
	idxB       = 512
	idxMaxTF   = 80
	idxPfactor = 80
)

// tuneIdxbuild derives the idxbuild parameters from the target machine.
//
// Threads: seed 003 found fewer sort groups with more merge threads best,
// with threadnum x mergethreads within 2 x cores; oversubscribing made a
// published 5.8 h rebuild take 32 h (performance-model §1.1). So threadnum
// is half the cores and mergethreads fills the 2 x cores budget; the data
// scan uses one thread per core.
//
// Memory: since 11.2 idxbuild allocates datascanthreads x TMB, plus
// ((TMB x TM) + TMB) x mergethreads per sort group, times threadnum, plus
// -TF percent of memory (KB 000037016). -TF starts at 80 and comes down
// until the total leaves a reserve of max(1G, 10%) for the OS and broker.
func tuneIdxbuild(m Machine, blockSize int) Idxbuild {
	c := m.Cores
	x := Idxbuild{TB: idxTB, TM: idxTM, TMB: idxTMB, SG: idxSG, B: idxB}
	x.Threadnum = max(1, c/2)
	x.Mergethreads = max(1, 2*c/x.Threadnum)
	x.Datascanthreads = c
	if blockSize == 8192 {
		x.Pfactor = idxPfactor // honoured on 8K blocks only (KB P132611)
	}
	scan := int64(x.Datascanthreads*x.TMB) * units.KB
	groups := int64((x.TMB*x.TM+x.TMB)*x.Mergethreads*x.Threadnum) * units.KB
	reserve := max(units.GB, m.MemoryBytes/10)
	avail := m.MemoryBytes - reserve - scan - groups
	tf := 0
	if avail > 0 {
		tf = int(100*avail/m.MemoryBytes) / 5 * 5
	}
	x.TF = min(idxMaxTF, tf)
	tfBytes := m.MemoryBytes * int64(x.TF) / 100

	var b strings.Builder
	fmt.Fprintf(&b, "-threadnum %d x -mergethreads %d = %d <= 2 x %d cores (White Star Software's dump/load benchmark: fewer sort groups with more merge threads was fastest; oversubscription is what turned a 5.8 h rebuild into 32 h); ",
		x.Threadnum, x.Mergethreads, x.Threadnum*x.Mergethreads, c)
	fmt.Fprintf(&b, "-datascanthreads %d = cores; -TB %d -TM %d: the maxima; -TMB %d = -TB, its minimum (the same benchmark: the smallest -TMB was fastest); -SG %d; -B %d: idxbuild sorts in its own buffers; ",
		x.Datascanthreads, x.TB, x.TM, x.TMB, x.SG, x.B)
	fmt.Fprintf(&b, "memory (KB 000037016): data scan %s + sort groups %s + -TF %d%% %s + reserve %s = %s of %s",
		units.FormatIEC(scan), units.FormatIEC(groups), x.TF, units.FormatIEC(tfBytes),
		units.FormatIEC(reserve), units.FormatIEC(scan+groups+tfBytes+reserve), units.FormatIEC(m.MemoryBytes))
	switch {
	case x.TF == 0:
		b.WriteString("; too little memory for an in-memory merge, so -TF 0 (merge through the sort files; put -T on a fast disk)")
	case x.TF < idxMaxTF:
		fmt.Fprintf(&b, "; -TF lowered from %d to fit", idxMaxTF)
	}
	if x.Pfactor > 0 {
		fmt.Fprintf(&b, "; -pfactor %d leaves room in fresh index blocks for the first inserts", x.Pfactor)
	}
	x.Reason = b.String()
	return x
}

// BI settings: 16M clusters space checkpoints out during a load (KB 20566:
// common sizes 4-32M; seed 000's benchmark used 16M) and 16K BI blocks make
// fewer, larger BI writes (the BI block may not be smaller than the data
// block).
const (
	biClusterKB = 16384
	biBlockKB   = 16
	// biMaxClusters caps the fixed BI extent: 16 clusters of 16M are a
	// ring the load's notes go round (a cluster is reused once a
	// checkpoint has passed it and its transactions have ended); a bigger
	// fixed BI is formatted inside the window for nothing.
	biMaxClusters = 16
)

// tuneBI sizes the BI from what the load writes through it: a binary load
// with integrity writes a note holding every record it creates (φ_BI ≈ 1,
// performance-model §4), so the notes of the whole load are about the
// bytes of its records. The fixed extent holds the whole clusters those
// notes fill, at most biMaxClusters and --max-extent; the rest, less than
// a cluster, and any growth go to the variable extent that always follows.
// A load whose notes fill no whole cluster gets the variable extent only:
// prostrct create formats every fixed block inside the window (on a 10 MB/s
// disk 256 MiB of BI is 26 s), which a load of a few MiB never earns back.
func tuneBI(o Options, biDir string, loadBytes int64) BI {
	unit := extentUnitKB(o.BlockSize)
	clusters := min(loadBytes/1024/biClusterKB, biMaxClusters)
	size := min(clusters*biClusterKB, o.maxExtentKB()) / unit * unit
	bi := BI{BlockSizeKB: biBlockKB, ClusterSizeKB: biClusterKB}
	why := fmt.Sprintf("truncate bi -bi %d: 16M clusters keep checkpoints apart during the load (KB 20566: 4-32M; Progress' “Performance Tuning Made Simple” uses 16M); "+
		"-biblocksize %d: fewer, larger BI writes; ", biClusterKB, biBlockKB)
	notes := units.FormatIEC(loadBytes)
	if size == 0 {
		bi.Extents = []Extent{{Path: biDir}}
		bi.Reason = why + fmt.Sprintf("the load's BI notes (about its %s of records) fill no whole %s cluster, so one variable extent: a fixed one would be formatted inside the window for nothing", notes, units.FormatIEC(biClusterKB*1024))
		return bi
	}
	bi.Extents = []Extent{{Path: biDir, Fixed: true, SizeKB: size}, {Path: biDir}}
	bi.Reason = why + fmt.Sprintf("a fixed %s extent pre-formats the whole clusters the load's BI notes fill (about its %s of records; at most %d clusters, which the BI reuses as a ring) so the load does not stop to extend the BI, then a variable one",
		units.FormatIEC(size*1024), notes, biMaxClusters)
	return bi
}

// spinPerCore is -spin per core: the highest value Progress documents as
// effective (Spin Lock Retries (-spin): "If you have fast processors, a
// value as high as 10,000 * # of CPUs might be effective"; its default is
// 6000 x CPUs). It was 20,000 per core, twice that, from a paper whose own
// measurements showed 10,000 to 90,000 barely differing (dba-review).
const spinPerCore = 10000

// startupParams are target.pf: the broker parameters for the loaded
// database, each with its reason (seed 000 and the Progress pages they name).
func startupParams(o Options, dbBytes int64) (params, procs []Param) {
	m := o.Machine
	bufBytes := min(max(dbBytes/10, 64*units.MB), m.MemoryBytes/4)
	buffers := max(bufBytes/int64(o.BlockSize), 1000)
	params = append(params, Param{Name: "-B", Value: strconv.FormatInt(buffers, 10),
		Reason: fmt.Sprintf("%d buffers x %d B = %s: 10%% of the %s database (the starting point of Progress' “Performance Tuning Made Simple” §4.1, at least 64 MiB), at most 25%% of %s memory to leave room for the OS cache and idxbuild's -TF; raise it while the hit ratio is under 98%%",
			buffers, o.BlockSize, units.FormatIEC(buffers*int64(o.BlockSize)), units.FormatIEC(dbBytes), units.FormatIEC(m.MemoryBytes))})
	if m.Cores > 1 {
		params = append(params, Param{Name: "-spin", Value: strconv.Itoa(m.Cores * spinPerCore),
			Reason: fmt.Sprintf("%d cores x %d, the most Progress' -spin page calls effective (\"a value as high as 10,000 * # of CPUs\"; "+
				"its default is 6000 x CPUs): more spins past that only burn CPU while a latch is held; lower it if CPU use nears 90%% (KB P23850); "+
				"not set on a one-core machine", m.Cores, spinPerCore)})
	}
	params = append(params,
		Param{Name: "-bibufs", Value: "64", Reason: "64, the default from 12.2 on (Progress, \"Database startup parameter default updates\": 20 before), " +
			"so that a target of an older release gets it too: the BI writer has full buffers to write while the loads and users fill others " +
			"(\"Performance Tuning Made Simple\" §4.2 asked for 25 when the default was 5; a lower value than the default would slow a 12.x target)"},
		Param{Name: "-aibufs", Value: "64", Reason: "64, as -bibufs and the 12.2 default (\"Performance Tuning Made Simple\" §4.3: at least -bibufs); " +
			"only used once after-imaging is enabled"},
		Param{Name: "-lruskips", Value: "100", Reason: "move a buffer to the head of the LRU chain only every 100th access: far less LRU latch traffic " +
			"(10.2B06 on; the default from 12.2, 0 before)"},
		Param{Name: "-napmax", Value: "250", Reason: "250 ms, the longest nap after a lost latch race: the 12.x default, which Progress' testing found good " +
			"and advises not to change (Nap Maximum (-napmax), 12.8 docs); written so a target of an older release naps the same"},
	)
	procs = append(procs,
		Param{Name: "proapw", Value: "2", Reason: "\"Performance Tuning Made Simple\" §4.10: always at least one page writer; one or two suffice"},
		Param{Name: "probiw", Value: "1", Reason: "\"Performance Tuning Made Simple\" §4.8: the BI writer writes full BI buffers in the background (only one can run)"},
	)
	if len(o.AIDirs) > 0 {
		procs = append(procs, Param{Name: "proaiw", Value: "1", Reason: "\"Performance Tuning Made Simple\" §4.9: the AI writer, once after-imaging is enabled"})
	}
	return params, procs
}
