package run

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/oedl/oedl/internal/hostfs"
)

// BenchmarkOffsetProbe is the CPU a running load's progress costs per
// measure (four a second): "hit" when the descriptor was found before (the
// usual case), "miss" when the process tree is walked (a load that has not
// opened its file yet). A child holding the file as its stdin stands in
// for proutil load. docs/benchmarks/run-progress.md turns these into a
// share of a core.
func BenchmarkOffsetProbe(b *testing.B) {
	path := filepath.Join(b.TempDir(), "customer.bd")
	if err := os.WriteFile(path, make([]byte, 4096), 0o644); err != nil {
		b.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command("sleep", "600")
	cmd.Stdin = f
	if err := cmd.Start(); err != nil {
		b.Skip("no sleep program:", err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	b.Run("hit", func(b *testing.B) {
		p := newOffsetProbe(path)
		p.setRoot(cmd.Process.Pid)
		if _, ok := p.Offset(); !ok {
			b.Skip("no /proc offsets on this system")
		}
		b.ResetTimer()
		for b.Loop() {
			p.Offset()
		}
	})
	b.Run("miss", func(b *testing.B) {
		for b.Loop() {
			p := newOffsetProbe(path)
			p.setRoot(cmd.Process.Pid)
			p.Offset()
		}
	})
}

// BenchmarkDumpMeasure is the CPU of one measure of a running threaded
// dump's directory (four a second per running dump).
func BenchmarkDumpMeasure(b *testing.B) {
	dir := b.TempDir()
	for _, f := range []string{"customer.bd", "customer.bd2", "customer.b3.bd", "customer.b4.bd", "PUB.customer.dumplist"} {
		if err := os.WriteFile(filepath.Join(dir, f), make([]byte, 1024), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	local := &hostfs.Local{}
	for b.Loop() {
		list, err := local.List(context.Background(), dir)
		if err != nil {
			b.Fatal(err)
		}
		sectionsOf(dir, "PUB.customer", fileNames(list))
		dumpedBytesOf(list, "PUB.customer")
	}
}
