package run

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/diskstats"
	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/schedule"
	"github.com/oedl/oedl/internal/tune"
)

// The run's tuner reads the counters once an interval, hands the
// controller the queue's jobs ended since the last reading, and tells
// each move of a limit as a tune event with the interval's figures.
func TestLiveTunerReadsOncePerIntervalAndTells(t *testing.T) {
	dir := t.TempDir()
	stat, disk := filepath.Join(dir, "stat"), filepath.Join(dir, "diskstats")
	write := func(jiffies, busyMs int) {
		require.NoError(t, os.WriteFile(stat, []byte("cpu  "+strconv.Itoa(jiffies)+" 0 0 "+strconv.Itoa(10*jiffies)+" 0 0 0 0\n"), 0o644))
		require.NoError(t, os.WriteFile(disk, []byte(" 253 0 vdisk 0 0 0 0 0 0 2048 0 0 "+strconv.Itoa(busyMs)+" 0\n"), 0o644))
	}
	write(10, 0)
	t0 := time.Date(2026, 11, 27, 0, 0, 0, 0, time.UTC)
	sampler := tune.Sampler{Stat: stat, Disk: &diskstats.Source{Path: disk, Device: "vdisk"}}
	var events []event.Event
	lt := &liveTuner{ctl: tune.New(tune.DefaultRules, map[string]int{"dump": 2}, map[string]int{"dump": 8}),
		sampler: sampler, last: sampler.Read(t0), ended: map[schedule.Slot]int{},
		limits: map[schedule.Slot]int{schedule.SlotDump: 2}, emit: func(e event.Event) { events = append(events, e) }}
	reads := 0
	finished := 0
	state := func() []schedule.SlotState {
		reads++
		finished += 3
		return []schedule.SlotState{{Slot: schedule.SlotDump, Limit: 2, Running: 2, Waiting: 40, Finished: finished}}
	}
	at := t0
	for i := 1; i <= 2; i++ {
		lt.Limits(at.Add(300*time.Millisecond), state) // within the interval: no reading
		at = at.Add(time.Second)
		write(10+10*i, 100*i)
		lt.Limits(at, state)
	}
	assert.Equal(t, 2, reads, "one reading per interval")
	assert.Equal(t, 3, lt.limits[schedule.SlotDump], "raised after two intervals of waiting")
	require.Len(t, events, 1)
	e := events[0]
	assert.Equal(t, event.TuneKind, e.Kind)
	require.NotNil(t, e.Tune)
	assert.Equal(t, event.Tune{Slot: "dump", From: 2, To: 3, Reason: tune.ReasonWaiting, CPUBusy: -1, MachineBusy: 1.0 / 11,
		DiskBusy: 0.1, DiskBytes: 0, Running: 2, Waiting: 40}, *e.Tune)
	assert.Contains(t, e.Message, "dump slots 2 -> 3")
}
