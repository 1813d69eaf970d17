package run

import (
	"strconv"

	"github.com/oedl/oedl/internal/openedge"

	"github.com/oedl/oedl/internal/schedule"
)

// Serving the target tuned for loading (Config.TuneTarget, oedl run
// --tune-target, on by default). Progress's binary-load advice (KB 19227)
// is to load multi-user with a larger BI cluster, the before-image writer
// and page writers; without them a crash-safe load waits for every BI
// block it fills and, at every checkpoint, for the modified blocks it
// flushes itself (openedge.LoadLog, which oesim charges and the estimate
// prices). So, when the run loads:
//
//   - create-target ends with truncate bi to the plan's BI block and
//     cluster (plan.BI, tuned from the load's notes): every load, served
//     or single-user, fills 16M clusters instead of the 512K default and
//     checkpoints 32 times less often;
//   - the broker serving the target for the loads gets target.pf's
//     parameters (the plan's -B, -spin, -bibufs, ...: sized from the
//     machine), -i with --no-integrity, and the plan's helper processes are
//     started beside it: probiw and proapw (not proaiw: after-imaging is
//     begun by the DBA after the load, poststeps).
//
// Nothing of it outlives the load phase: the broker is shut down before
// idxbuild, and the post phase truncates the BI to the plan's settings
// again, so the target the DBA starts with target.pf is as planned;
// target.pf itself is never written by a run. --tune-target=false serves
// the target with a bare proserve, as a naive kit does (the baseline of
// docs/benchmarks/run.md's A/B).

// serveSteps starts the broker of database which: tuned for loading on
// the target, a bare proserve otherwise.
func (c *Config) serveSteps(which string) []step {
	c = c.atDB(which)
	argv := []string{c.bin("proserve"), c.db(which)}
	users := func(jobs int) {
		if n := brokerUsers(jobs); n > openedge.DefaultBrokerUsers {
			argv = append(argv, "-n", strconv.Itoa(n))
		}
	}
	if which != schedule.DBTarget {
		users(c.dumpMax()) // the source and its replicas serve the dumps
		return []step{{argv: argv, host: c.host}}
	}
	if c.TuneTarget {
		for _, p := range c.Plan.Startup {
			argv = append(argv, p.Name)
			if p.Value != "" {
				argv = append(argv, p.Value)
			}
		}
	}
	users(c.loadMax())
	if c.NoIntegrity {
		argv = append(argv, "-i") // served only for the loads (noint.go)
	}
	steps := []step{{argv: argv, host: c.host}}
	if !c.TuneTarget {
		return steps
	}
	for _, p := range c.Plan.Processes {
		n := 1
		switch p.Name {
		case "proapw":
			if v, err := strconv.Atoi(p.Value); err == nil && v > 0 {
				n = v
			}
		case "probiw":
		default:
			continue
		}
		for range n {
			steps = append(steps, step{argv: []string{c.bin(p.Name), c.db(which)}, host: c.host, speedOnly: true})
		}
	}
	return steps
}

// truncateBISteps sets the target's BI block and cluster to the plan's
// (offline): after create-target for the loads, and in the post phase.
func (c *Config) truncateBISteps() []step {
	bi := c.Plan.BI
	if bi.ClusterSizeKB <= 0 && bi.BlockSizeKB <= 0 {
		return nil
	}
	args := []string{"bi"}
	if bi.BlockSizeKB > 0 {
		args = append(args, "-biblocksize", strconv.Itoa(bi.BlockSizeKB))
	}
	if bi.ClusterSizeKB > 0 {
		args = append(args, "-bi", strconv.Itoa(bi.ClusterSizeKB))
	}
	return []step{{argv: c.proutil(c.Target, "truncate", args...)}}
}
