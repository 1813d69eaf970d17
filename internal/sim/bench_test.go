package sim

import (
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/openedge"
)

// The benchmarks measure the simulator on a generated erp database
// (OESIM_BENCH_SCALE, default 200MB) with the virtual disk off, one utility
// process per table as a dump/load script runs them. Besides wall-clock
// MB/s they report MB per CPU-second of the utilities (their rusage) and a
// baseline measured in the same run: a plain file copy of the same number
// of bytes on the same file system, so that figures taken on a loaded
// machine can be compared. Run with:
//
//	go test ./internal/sim -run '^$' -bench Oesim -benchtime 1x
//
// (TMPDIR=/dev/shm measures the simulator rather than the disk.)
func BenchmarkOesim(b *testing.B) {
	scale := os.Getenv("OESIM_BENCH_SCALE")
	if scale == "" {
		scale = "200MB"
	}
	env, src := fixtures.source(b, "erp", scale)
	before := analysisB(b, env, src)
	var recordBytes int64
	for _, t := range before.Tables {
		recordBytes += t.Bytes
	}
	mb := float64(recordBytes) / (1 << 20)
	dumpDir := filepath.Join(env.work, "bench-dump")

	b.Run("copy-baseline", func(b *testing.B) {
		for range b.N {
			start := time.Now()
			copyBytes(b, src+".d1", filepath.Join(env.work, "copy.tmp"), recordBytes)
			b.ReportMetric(mb/time.Since(start).Seconds(), "MB/s")
		}
	})

	// The tables that hold half of the records: the throughput of the
	// record path itself, which is what bounds a big migration.
	sorted := append([]openedge.TableStat(nil), before.Tables...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Bytes > sorted[j].Bytes })
	var big []openedge.TableStat
	var bigBytes int64
	for _, t := range sorted {
		if bigBytes >= recordBytes/2 {
			break
		}
		big = append(big, t)
		bigBytes += t.Bytes
	}
	sets := []struct {
		name   string
		tables []openedge.TableStat
		mb     float64
	}{
		{"largest", big, float64(bigBytes) / (1 << 20)},
		{"all", before.Tables, mb},
	}

	var files []string
	for _, set := range sets {
		b.Run("dump-"+set.name, func(b *testing.B) {
			for range b.N {
				require.NoError(b, os.RemoveAll(dumpDir))
				require.NoError(b, os.MkdirAll(dumpDir, 0o755))
				files = files[:0]
				cpu0 := childCPU()
				start := time.Now()
				for _, t := range set.tables {
					env.ok(b, "proutil", src, "-C", "dump", t.QualifiedName(), dumpDir)
					files = append(files, filepath.Join(dumpDir, t.Name+".bd"))
				}
				wall := time.Since(start).Seconds()
				b.ReportMetric(set.mb/wall, "MB/s")
				b.ReportMetric(set.mb/(childCPU()-cpu0), "MB/cpu-s")
				b.ReportMetric(wall*1000/float64(len(set.tables)), "ms/table")
			}
		})
	}

	var tgt string
	for _, set := range sets {
		b.Run("load-"+set.name, func(b *testing.B) {
			for i := range b.N {
				b.StopTimer()
				tgt = benchTarget(b, env, src, i)
				b.StartTimer()
				cpu0 := childCPU()
				start := time.Now()
				for _, t := range set.tables {
					env.ok(b, "proutil", tgt, "-C", "load", filepath.Join(dumpDir, t.Name+".bd"), "-i")
				}
				wall := time.Since(start).Seconds()
				b.ReportMetric(set.mb/wall, "MB/s")
				b.ReportMetric(set.mb/(childCPU()-cpu0), "MB/cpu-s")
				b.ReportMetric(wall*1000/float64(len(set.tables)), "ms/table")
			}
		})
	}

	b.Run("idxbuild", func(b *testing.B) {
		for range b.N {
			cpu0 := childCPU()
			start := time.Now()
			out := env.ok(b, "proutil", tgt, "-C", "idxbuild", "all", "-TB", "64", "-TM", "32", "-TMB", "64",
				"-threadnum", "2", "-mergethreads", "2", "-datascanthreads", "2")
			b.ReportMetric(time.Since(start).Seconds(), "s")
			b.ReportMetric(childCPU()-cpu0, "cpu-s")
			res, err := openedge.ParseIdxbuildOutput(out)
			require.NoError(b, err)
			b.ReportMetric(float64(res.Indexes), "indexes")
		}
	})
}

func analysisB(b *testing.B, env *dlcEnv, db string) *openedge.Analysis {
	out := env.ok(b, "proutil", db, "-C", "tabanalys")
	a, err := openedge.ParseAnalysis(stringsReader(out), db)
	require.NoError(b, err)
	a.Tables = slices.DeleteFunc(a.Tables, openedge.TableStat.System)
	return a
}

// benchTarget creates an empty copy of the source's schema (its own .st
// and .df) to load into.
func benchTarget(b *testing.B, env *dlcEnv, src string, i int) string {
	dir := filepath.Join(env.work, "bench-target", time.Now().Format("150405.000000"))
	require.NoError(b, os.MkdirAll(dir, 0o755))
	st, err := os.ReadFile(src + ".st")
	require.NoError(b, err)
	stPath := filepath.Join(dir, "t.st")
	require.NoError(b, os.WriteFile(stPath, []byte(replaceDots(string(st), dir)), 0o644))
	db := filepath.Join(dir, "t")
	env.ok(b, "prostrct", "create", db, stPath, "-blocksize", "8192")
	env.ok(b, "procopy", filepath.Join(env.dlc, "empty8"), db)
	env.ok(b, "_progres", "-b", "-db", db, "-p", "prodict/load_df.p", "-param", src+".df")
	return db
}

// childCPU is the user+system CPU seconds of the waited-for children.
func childCPU() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru)
	return tv(ru.Utime) + tv(ru.Stime)
}

// copyBytes copies n bytes of src (repeating it as needed) to dst with
// 1 MB writes: the file-system baseline.
func copyBytes(b *testing.B, src, dst string, n int64) {
	in, err := os.Open(src)
	require.NoError(b, err)
	defer in.Close()
	out, err := os.Create(dst)
	require.NoError(b, err)
	defer os.Remove(dst)
	defer out.Close()
	buf := make([]byte, 1<<20)
	for n > 0 {
		k, err := in.Read(buf[:min(int64(len(buf)), n)])
		if err == io.EOF {
			in.Seek(0, io.SeekStart)
			continue
		}
		require.NoError(b, err)
		_, err = out.Write(buf[:k])
		require.NoError(b, err)
		n -= int64(k)
	}
}
