package run

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/execx"
	"github.com/oedl/oedl/internal/hosts"
	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/plan"
)

// dfHost answers the preflight's df calls on a host: each directory is on
// the filesystem of the longest prefix in free (KiB available).
type dfHost struct{ free map[string]int64 }

func (d dfHost) Run(_ context.Context, c execx.Cmd) (execx.Result, error) {
	if c.Path != "sh" || len(c.Args) != 4 || !strings.Contains(c.Args[1], "df -P -k") {
		return execx.Result{ExitCode: 1}, fmt.Errorf("unexpected call %s %v", c.Path, c.Args)
	}
	dir, mount := c.Args[3], "/"
	for m := range d.free {
		if (dir == m || strings.HasPrefix(dir, strings.TrimSuffix(m, "/")+"/")) && len(m) > len(mount) {
			mount = m
		}
	}
	fmt.Fprintf(c.Stdout, "Filesystem 1024-blocks Used Available Capacity Mounted on\n/dev/x 99999999 0 %d 1%% %s\n", d.free[mount], mount)
	return execx.Result{}, nil
}

// TestSpaceOnTheTargetHostCountsTheExtents: on a run across hosts, the
// target's room is checked where target.st puts its extents, at their
// full fixed size (prostrct create formats them), as on one machine. The
// hosts preflight counted the tables' bytes in the .db's directory only:
// a new server whose extent filesystem was smaller than the plan's fixed
// extents passed the preflight, and the run failed in the window
// (create-target or idxbuild: errno 28 on the target's host).
func TestSpaceOnTheTargetHostCountsTheExtents(t *testing.T) {
	hf, err := hosts.Parse("hosts.yaml", []byte(threeHostsFile))
	require.NoError(t, err)
	p := &plan.Plan{BlockSize: 8192, Tables: []plan.Placement{placement("PUB.customer", "Cust", 10_000)}} // 1 MB of records
	cfg := Config{Hosts: hf, PlanDir: "/plan", Work: "/here", Plan: p, DumpJobs: 2, LoadJobs: 2}
	cfg.fill()
	cfg.setupHosts()
	const lots = 1 << 30 // KiB
	for name, free := range map[string]map[string]int64{
		"prod": {"/": lots}, "dr": {"/": lots},
		"new": {"/": lots, "/data1": 50 << 10}, // 50 MiB where the extents go
	} {
		cfg.machine(name).runner = dfHost{free: free}
	}
	st, err := openedge.ParseStructure(strings.NewReader(`b /newdb
d "Schema Area":6,64;1 /newdb
d "Cust":7,64;8 /data1/prod f 102400
d "Cust":7,64;8 /data1/prod
`), "target.st")
	require.NoError(t, err)
	r := &runner{cfg: &cfg}

	_, err = r.checkSpaceOn(context.Background(), st)
	var pe *PreconditionError
	require.ErrorAs(t, err, &pe, "100 MiB of fixed extents on a 50 MiB filesystem")
	assert.Contains(t, err.Error(), "host new: not enough disk space on the filesystem of /data1/prod")

	// A resumed run keeps the target it created: its fixed extents are
	// there already, and only what outgrows them counts.
	r.resumeKeepsTarget = true
	msg, err := r.checkSpaceOn(context.Background(), st)
	require.NoError(t, err)
	assert.Contains(t, msg, "new: 50.0M free for 0.0B")
}

// TestSpaceOnTheSourceHostKeepsItsRoom: on a run across hosts, the
// source's headroom (--source-headroom, room.Source) is kept on every
// filesystem of the source's machine where it grows, as on one machine:
// the dumps in the source host's work directory, or a target on the
// source's machine, that would leave it less are refused (exit 3) naming
// the host and the filesystem, before anything is written. The hosts
// preflight counted only oedl's own files there (safety trial 12's "Not
// covered").
func TestSpaceOnTheSourceHostKeepsItsRoom(t *testing.T) {
	const headroom = 64 << 20
	// The source's BI grows on / (with the source host's work directory
	// and, when the target is on that machine, the target); its data on /db.
	srcSt, err := openedge.ParseStructure(strings.NewReader("b /bi/prod.b1\nd \"Schema Area\":6,64;1 /db/prod.d1\n"), "prostrct list")
	require.NoError(t, err)
	tgtSt, err := openedge.ParseStructure(strings.NewReader("b /newdb\nd \"Schema Area\":6,64;1 /newdb\n"), "target.st")
	require.NoError(t, err)
	const lots = 1 << 30 // KiB
	for _, tc := range []struct {
		name      string
		newSSH    string // the target's ssh destination
		rootFree  int64  // KiB free on the source machine's /
		refused   string // "" accepted
		summary   string
		headroomB int64
		dumped    bool // a resume: the journal proves the dumps on disk (taking their room already)
	}{
		{"the dumps leave the source its room", "new1", lots, "", "kept for the source to grow", headroom, false},
		{"the dumps would eat the source's room", "new1", headroom>>10 + 512, "host prod: no room left for the source /db/prod to grow on the filesystem of /w-prod", "", headroom, false},
		{"no headroom stated", "new1", headroom>>10 + 512, "", "prod: ", -1, false},
		{"a resume: the dumps done take their room already", "new1", headroom>>10 + 512, "", "kept for the source to grow", headroom, true},
		{"a target on the source's machine eats it", "prod1", headroom>>10 + 2<<10, "host prod: no room left for the source /db/prod to grow on the filesystem of /w-prod: 66 MiB free, oedl would take 2.6 MiB (dumps on prod 976.6K + dumps moved to new 976.6K + sort files", "", headroom, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			hf, err := hosts.Parse("hosts.yaml", []byte(strings.Replace(threeHostsFile, "ssh: new1", "ssh: "+tc.newSSH, 1)))
			require.NoError(t, err)
			p := &plan.Plan{BlockSize: 8192, Tables: []plan.Placement{placement("PUB.customer", "Cust", 10_000)}}
			cfg := Config{Hosts: hf, PlanDir: "/plan", Work: "/here", Plan: p, DumpJobs: 2, LoadJobs: 2, SourceHeadroom: tc.headroomB}
			cfg.fill()
			cfg.setupHosts()
			prod := dfHost{free: map[string]int64{"/": tc.rootFree, "/db": lots}}
			cfg.machine("prod").runner = prod
			cfg.machine("dr").runner = dfHost{free: map[string]int64{"/": lots}}
			cfg.machine("new").runner = dfHost{free: map[string]int64{"/": lots}}
			if tc.newSSH == "prod1" {
				cfg.machine("new").runner = prod
			}
			r := &runner{cfg: &cfg}
			if tc.dumped {
				r.dumpProven = func(string) bool { return true }
			}
			r.sourceRoom, err = r.sourceRoomOn(context.Background(), srcSt)
			require.NoError(t, err)

			msg, err := r.checkSpaceOn(context.Background(), tgtSt)
			if tc.refused == "" {
				require.NoError(t, err)
				assert.Contains(t, msg, tc.summary)
				return
			}
			var pe *PreconditionError
			require.ErrorAs(t, err, &pe)
			assert.Contains(t, err.Error(), tc.refused)
			assert.Contains(t, err.Error(), "64 MiB kept")
			assert.Contains(t, err.Error(), "/bi/prod.b1")
		})
	}
}
