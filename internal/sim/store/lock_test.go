package store

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHolderBesideProbe: a ReadHolder probe in progress is not a holder.
// It once took DB.lk's flock exclusively for its instant, and a broker
// starting beside proserve's poll found the database in use by the poll
// and exited 1. Each case leaves a dead holder's DB.lk, then puts beside
// it what the case names, and asks ReadHolder and Acquire.
func TestHolderBesideProbe(t *testing.T) {
	for _, tc := range []struct {
		name      string
		beside    func(t *testing.T, p Paths) (end func())
		wantAlive bool
		// probesWaited: Acquire saw probes, waited for them and took DB.lk.
		probesWaited bool
		wantInUse    bool
	}{
		{name: "nobody", beside: func(*testing.T, Paths) func() { return func() {} }},
		{name: "a probe", beside: probeOf, probesWaited: true},
		{name: "a live holder", beside: liveHolder, wantAlive: true, wantInUse: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := PathsFor(filepath.Join(t.TempDir(), "db"))
			require.NoError(t, os.WriteFile(p.Lock(), []byte("single 99999999 gone\n"), 0o644))
			end := tc.beside(t, p)
			defer end()

			h, err := ReadHolder(p)
			require.NoError(t, err)
			assert.Equal(t, tc.wantAlive, h.Alive, "ReadHolder beside %s", tc.name)

			waited := 0
			probesEnding = func() { waited++; end() }
			defer func() { probesEnding = func() {} }()
			l, err := Acquire(p, Single)
			if tc.wantInUse {
				var inUse *InUseError
				require.ErrorAs(t, err, &inUse)
				assert.Zero(t, waited, "a live holder is no probe to wait for")
				return
			}
			require.NoError(t, err, "Acquire beside %s", tc.name)
			defer l.Release()
			assert.Equal(t, tc.probesWaited, waited == 1, "Acquire waited for the probe")
			require.NotNil(t, l.Recovered, "the dead holder's DB.lk is recovered")
			assert.Equal(t, 99999999, l.Recovered.Pid)
		})
	}
}

// probeOf holds DB.lk as a ReadHolder probe does at its instant.
func probeOf(t *testing.T, p Paths) func() {
	f, err := os.Open(p.Lock())
	require.NoError(t, err)
	require.NoError(t, syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB))
	return func() { f.Close() }
}

// liveHolder holds DB.lk as a utility or broker that runs does.
func liveHolder(t *testing.T, p Paths) func() {
	require.NoError(t, os.Remove(p.Lock()))
	l, err := Acquire(p, Multi)
	require.NoError(t, err)
	return func() { l.Release() }
}
