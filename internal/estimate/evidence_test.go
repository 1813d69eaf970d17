package estimate

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// jobsTaking are n observations of a group whose start-up took a times and
// whose work took b times what was predicted.
func jobsTaking(group string, n int, startup, work, a, b float64) []observation {
	out := make([]observation, n)
	for i := range out {
		out[i] = observation{group: group, startup: startup, work: work, actual: a*startup + b*work}
	}
	return out
}

func TestFitWithoutEvidenceIsThePrior(t *testing.T) {
	f := fitFactors(false, nil)
	for _, g := range []string{groupAll, groupDump, groupLoad, groupIdxbuild, groupSourceTba, groupTargetTba, groupOther} {
		assert.Equal(t, Identity, f[g], g)
	}
}

// The weight of the evidence: the more seconds of jobs behind a factor,
// the closer it is to what they show, from the prior towards it.
func TestFitMovesFromThePriorAsEvidenceComes(t *testing.T) {
	prev := 1.0
	for _, n := range []int{1, 4, 16, 64, 256} {
		// Small tables: all start-up, each taking 3 times the prediction.
		f := fitRidge(jobsTaking(groupLoad, n, 0.5, 0.01, 3, 1), Identity)
		assert.Greater(t, f.Startup, prev, "n=%d", n)
		assert.Less(t, f.Startup, 3.0, "n=%d", n)
		assert.InDelta(t, 1, f.Work, 0.05, "n=%d: the start-ups say little of the work", n)
		prev = f.Startup
	}
	// 256 jobs, 130.6 s of evidence against the prior's 5 s.
	assert.InDelta(t, (130.56*3+5)/(130.56+5), prev, 0.01)
}

func TestFitSeparatesStartupsFromWork(t *testing.T) {
	// Small and large jobs of one run: start-ups a fifth of the model's,
	// work twice; enough of both for the prior not to matter.
	obs := append(jobsTaking(groupDump, 200, 0.3, 0.05, 0.2, 2), jobsTaking(groupDump, 20, 0.3, 20, 0.2, 2)...)
	f := fitRidge(obs, Identity)
	assert.InDelta(t, 0.2, f.Startup, 0.03)
	assert.InDelta(t, 2, f.Work, 0.05)
	assert.InDelta(t, 200*0.35+20*20.3, f.Evidence, 1e-6)
}

// A group without jobs of its own follows its kin (idxbuild and the
// source's tabanalys the dumps, the target's tabanalys the model, the
// others the run); a group with many follows its own.
func TestGroupsShrinkTowardsTheRun(t *testing.T) {
	var obs []observation
	for g, work := range map[string]float64{groupDump: 1.5, groupLoad: 0.5} {
		obs = append(obs, jobsTaking(g, 100, 0.4, 0.05, 0.5, work)...)
		obs = append(obs, jobsTaking(g, 10, 0.4, 10, 0.5, work)...)
	}
	f := fitFactors(false, obs)
	assert.InDelta(t, 1, f[groupAll].Work, 0.1, "the dumps' 1.5 and the loads' 0.5 together")
	assert.InDelta(t, 0.5, f[groupAll].Startup, 0.05)
	assert.InDelta(t, 1.5, f[groupDump].Work, 0.05)
	assert.InDelta(t, 0.5, f[groupLoad].Work, 0.05)
	same := func(a, b Factors) bool { return a.Startup == b.Startup && a.Work == b.Work }
	assert.True(t, same(f[groupAll], f[groupOther]), "no other step yet: the run's factors")
	assert.True(t, same(f[groupDump], f[groupSourceTba]), "the source's tabanalys: the dumps'")
	assert.True(t, same(Identity, f[groupTargetTba]), "the target's tabanalys: the model's")
	assert.Equal(t, f[groupDump].Startup, f[groupIdxbuild].Startup, "idxbuild has none: the dumps' factors")
	assert.Equal(t, f[groupDump].Work, f[groupIdxbuild].Work)
	assert.Zero(t, f[groupIdxbuild].Evidence)

	// One idxbuild that took 3 times its work: its factor moves from the
	// run's towards 3, weighed by its 40 s against the prior's 10.
	obs = append(obs, observation{group: groupIdxbuild, startup: 1, work: 40, actual: 1*0.5 + 3*40})
	f = fitFactors(false, obs)
	assert.Greater(t, f[groupIdxbuild].Work, 2.2)
	assert.Less(t, f[groupIdxbuild].Work, 3.0)
}

// Calibrated, idxbuild's and the source's tabanalys's prior is the model
// (their costs were measured on the run's machine); the other groups keep
// theirs.
func TestCalibratedOneOffJobsKeepTheModel(t *testing.T) {
	var obs []observation
	for g, work := range map[string]float64{groupDump: 0.86, groupLoad: 1.1} {
		obs = append(obs, jobsTaking(g, 100, 0.4, 0.05, 1.3, work)...)
		obs = append(obs, jobsTaking(g, 10, 0.4, 10, 1.3, work)...)
	}
	priors, calibrated := fitFactors(false, obs), fitFactors(true, obs)
	for _, g := range []string{groupIdxbuild, groupSourceTba} {
		assert.Equal(t, Factors{Startup: 1, Work: 1}, calibrated[g], "%s, no evidence: the model", g)
		assert.Equal(t, priors[groupDump].Work, priors[g].Work, "%s on the priors: the dumps'", g)
	}
	for _, g := range []string{groupAll, groupDump, groupLoad, groupOther, groupTargetTba} {
		assert.Equal(t, priors[g], calibrated[g], g)
	}
	// Its own evidence moves it from the model: 40 s at 1.3 against the
	// prior's 5 s and 0.5 on each factor.
	obs = append(obs, observation{group: groupIdxbuild, startup: 1, work: 40, actual: 1 + 1.3*40})
	f := fitFactors(true, obs)[groupIdxbuild]
	assert.Greater(t, f.Work, 1.2)
	assert.Less(t, f.Work, 1.3)
}

func TestFitIgnoresAStalledJob(t *testing.T) {
	obs := jobsTaking(groupLoad, 300, 0.5, 0.5, 2, 2)
	obs[7].actual = 600 // a neighbour's burst held it for ten minutes
	assert.Greater(t, fitRidge(obs, Identity).Startup+fitRidge(obs, Identity).Work, 5.5, "untrimmed")
	f := fitTrimmed(obs, Identity)
	// Each job took 2·0.5 + 2·0.5 = 2 s of a predicted 1 s: 299 s of
	// evidence against the prior's 5.
	assert.InDelta(t, (299*4+5*2)/304.0, f.Startup+f.Work, 0.01, "the stall is trimmed")
}

func TestFactorsStayInRange(t *testing.T) {
	f := fitRidge(jobsTaking(groupLoad, 500, 1, 0, 1000, 1), Identity)
	assert.Equal(t, maxFactor, f.Startup)
	f = fitRidge(jobsTaking(groupLoad, 500, 1, 0, 0, 1), Identity)
	assert.Equal(t, minFactor, f.Startup)
}

func TestShrink(t *testing.T) {
	assert.Equal(t, 1.0, shrink(0))
	assert.InDelta(t, 0.5, shrink(3*priorWeight), 1e-12)
	assert.Less(t, shrink(1000), shrink(100))
}
