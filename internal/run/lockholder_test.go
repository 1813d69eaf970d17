package run

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestWorkBusyNamesItsHolder: a work directory's lock refused a second
// oedl with "another oedl (pid N) is running in W: watch it with oedl
// status --work W", also when the holder was a calibration, which has no
// journal for oedl status to read (it said there was no run). The lock
// now says which command holds it, and the refusal what to do about that
// one.
func TestWorkBusyNamesItsHolder(t *testing.T) {
	pid := strconv.Itoa(os.Getpid())
	tests := []struct {
		name, holder, comer string
		take                func(work string) (func(), error)
		want, not           []string
	}{
		{"a calibration holds it, a run comes", "calibrate", "run", LockCalibration,
			[]string{"another oedl calibrate (pid " + pid + ")", "ends by itself", "another --work"}, []string{"oedl status"}},
		{"a calibration holds it, a calibration comes", "calibrate", "calibrate", LockCalibration,
			[]string{"another oedl calibrate (pid " + pid + ")", "another --work"}, []string{"oedl status"}},
		{"a run holds it, a calibration comes", "run", "calibrate", func(w string) (func(), error) { return lockWork(w, "run") },
			[]string{"another oedl run (pid " + pid + ")", "oedl status --work", "calibrate in another --work"}, nil},
		{"a preparation holds it, a run comes", "prepare", "run", func(w string) (func(), error) { return lockWork(w, "prepare") },
			[]string{"another oedl prepare (pid " + pid + ")", "oedl status --work"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			work := t.TempDir()
			unlock, err := tt.take(work)
			require.NoError(t, err)
			defer unlock()
			data, err := os.ReadFile(filepath.Join(work, LockFile))
			require.NoError(t, err)
			assert.Equal(t, pid+" "+tt.holder+"\n", string(data), "the lock names its holder")
			var again error
			if tt.comer == "calibrate" {
				_, again = LockCalibration(work)
			} else {
				_, again = lockWork(work, tt.comer)
			}
			require.Error(t, again)
			if tt.holder == "calibrate" {
				assert.Contains(t, again.Error(), filepath.Join(work, "calibrate"), "where its scratch is")
			}
			for _, w := range tt.want {
				assert.Contains(t, again.Error(), w)
			}
			for _, n := range tt.not {
				assert.NotContains(t, again.Error(), n)
			}
		})
	}
}

// TestWorkBusyOlderStamp: a lock an older oedl wrote holds its pid alone:
// its holder is a run or a preparation (calibrate took no lock then), and
// a calibration still takes such a file as oedl's.
func TestWorkBusyOlderStamp(t *testing.T) {
	err := workBusy("/w", "run", []byte("123\n"))
	assert.EqualError(t, err, "another oedl (pid 123) is running in /w: watch it with oedl status --work /w")
	work := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(work, LockFile), []byte("123\n"), 0o644))
	unlock, err := LockCalibration(work)
	require.NoError(t, err)
	unlock()
}
