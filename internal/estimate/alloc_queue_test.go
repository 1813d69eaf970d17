package estimate

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestWaitedRequestsQueueBehindOthers: a stream that asks little of the
// disk but waits for each of its requests (a batch of tiny tables: its
// .bd blocks, its commits) beside a streaming one, on a serial 100 MB/s
// disk. The device serves its queue in arrival order, so each waited
// request is served after the request the streaming load has queued: its
// service time (1 s of bytes over 381.5 requests of 256 KiB: 2.62 ms), at
// most DiskQueueMs, as often as that load is doing I/O. Max-min sharing
// alone (DiskQueueMs 0, the old model) served the small stream's 8.2 ms
// of device time at once: 16 ms, with half the disk.
func TestWaitedRequestsQueueBehindOthers(t *testing.T) {
	small := jobWork{flows: []flowDemand{{bytes: 100 * 8192, ops: 100, waits: 100, par: 1, qd: 1}}}
	stream := func(cpu float64) jobWork {
		return jobWork{flows: []flowDemand{{cpu: cpu, bytes: 1e8, ops: 1e8 / (256 << 10), waits: 0, par: 1, qd: 1}}}
	}
	tests := []struct {
		name            string
		queueMs         float64
		beside          jobWork
		wantSmall       time.Duration
		wantStreamAfter time.Duration // the streaming load's end: the device's work is the same
	}{
		{"served at once (the old model): half the disk", 0, stream(0), 16 * time.Millisecond, 1008 * time.Millisecond},
		{"each waited request behind a 1 ms slice of the load", 1, stream(0), 108 * time.Millisecond, 1008 * time.Millisecond},
		{"behind the load's whole request (2.62 ms) when the queue holds more", 4, stream(0), 270 * time.Millisecond, 1008 * time.Millisecond},
		{"a load computing half its time has a request queued half the time", 4, stream(1), 139 * time.Millisecond, 2000 * time.Millisecond}, // the disk half idle: the small one delays it not
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			hw := Hardware{Cores: 2, DiskMBps: 100, DiskModel: DiskSerial, DiskQueueMs: tt.queueMs}
			s := newSim(hw)
			s.add("small", small)
			s.add("stream", tt.beside)
			ends := map[string]time.Duration{}
			for !s.idle() {
				for _, ev := range s.step() {
					if ev.taskDone {
						ends[ev.task.ref.(string)] = seconds(s.now)
					}
				}
			}
			assert.Equal(t, tt.wantSmall, ends["small"])
			assert.Equal(t, tt.wantStreamAfter, ends["stream"])
		})
	}
}
