package run

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A prepared target's proof (its holder, its tabanalys) does not wait for
// the source's checks: the source's describe, the last of them, goes on
// only once the target's tabanalys has started.
func TestPreparedProofBesideTheSourceChecks(t *testing.T) {
	cfg := fakeSetup(t, testTables...)
	oe := newFakeOE(cfg.Plan)
	oe.schemaTables = true
	cfg.Runner = oe
	_, err := Prepare(context.Background(), cfg)
	require.NoError(t, err)

	oe.waitFor = map[string]string{
		"proutil " + cfg.Source + " -C describe": "proutil " + cfg.Target + " -C tabanalys",
	}
	oe.calls = nil // the run's calls only: prepare ran a tabanalys of its own
	_, err = Run(context.Background(), cfg)
	require.NoError(t, err)
	var proof []string
	for _, c := range oe.calls {
		if strings.HasPrefix(c, "proutil "+cfg.Target+" -C holder") || strings.HasPrefix(c, "proutil "+cfg.Target+" -C tabanalys") {
			proof = append(proof, c)
		}
	}
	assert.Equal(t, []string{"proutil " + cfg.Target + " -C holder", "proutil " + cfg.Target + " -C tabanalys",
		"proutil " + cfg.Target + " -C tabanalys"}, proof, "the proof's holder and tabanalys once each, then the run's own count")
}
