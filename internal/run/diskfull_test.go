package run

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDiskFullIsNotRetried: a utility that filled its disk (errno 28)
// would fill it again on every attempt: the --retries (and, for a load,
// the repair of its area and the dump again) only used up the window.
// The job fails once, naming the file with errno 28, and the resume,
// once space is freed, finishes the run verified.
func TestDiskFullIsNotRetried(t *testing.T) {
	tests := []struct {
		name, call, job, file string
		calls                 func(*fakeOE) int
	}{
		{"a dump", "dump PUB.order-line", "dump:PUB.order-line", "order-line.bd",
			func(oe *fakeOE) int { return dumpsOf(oe, "PUB.order-line") }},
		{"a load", "load PUB.order-line", "load:PUB.order-line", "/target/db_7.d1",
			func(oe *fakeOE) int { return loadsOf(oe, "/PUB.order-line/") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := fakeSetup(t, testTables...)
			oe := newFakeOE(cfg.Plan)
			oe.diskFull[tt.call] = true
			cfg.Runner, cfg.Retries = oe, 2

			_, err := Run(context.Background(), cfg)
			var fe *FailedError
			require.True(t, errors.As(err, &fe), "%v", err)
			require.Len(t, fe.Failed, 1, "%v", err)
			f := fe.Failed[0]
			assert.Equal(t, tt.job, f.ID)
			assert.Equal(t, 1, f.Attempt, "not tried again on a full disk")
			assert.Contains(t, f.Err, tt.file, "names the file, and so the disk, that filled up")
			assert.Equal(t, 1, tt.calls(oe), "one call, no retry, no repair and dump again")

			cfg.Resume = true
			res, err := Run(context.Background(), cfg)
			require.NoError(t, err)
			require.NotNil(t, res.Verify)
			assert.True(t, res.Verify.OK)
		})
	}
}

// loadsOf counts the loads of the dump files under dir (its table's
// directory: "/PUB.order-line/") the fake ran.
func loadsOf(oe *fakeOE, dir string) int {
	oe.mu.Lock()
	defer oe.mu.Unlock()
	n := 0
	for _, c := range oe.calls {
		if f := strings.Fields(c); len(f) > 4 && f[0] == "proutil" && f[3] == "load" && strings.Contains(f[4], dir) {
			n++
		}
	}
	return n
}

// TestRefusalIsNotRetried: a dump whose utility says, by message number
// and errno, that every attempt ends the same way (a file it may not
// open, a database of another version) fails at once with that message,
// in every language; one that may pass next time (EMFILE: too many open
// files) keeps its --retries.
func TestRefusalIsNotRetried(t *testing.T) {
	tests := []struct {
		name, out, want string
		calls           int
	}{
		{"permission denied, en", "** Cannot find or open file /db/src_8.d1, errno = 13. (43)\n", "errno = 13. (43)", 1},
		{"permission denied, pt", "** Impossível localizar ou abrir o arquivo /db/src_8.d1, errno = 13. (43)\nDumped 0 records. (13932)\n", "errno = 13. (43)", 1},
		{"read-only, de", "** Datei /db/src.lk kann nicht gefunden oder geöffnet werden, errno = 30. (43)\n", "errno = 30. (43)", 1},
		{"another version", "** Database has the wrong version number. (db: 8376, pro: 8365). (44)\n", "(44)", 1},
		{"too many open files is retried", "** Cannot find or open file /w/dump/PUB.order-line/order-line.bd, errno = 24. (43)\n", "errno = 24. (43)", 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := fakeSetup(t, testTables...)
			oe := newFakeOE(cfg.Plan)
			oe.refuse["dump PUB.order-line"] = tt.out
			cfg.Runner, cfg.Retries = oe, 2

			_, err := Run(context.Background(), cfg)
			var fe *FailedError
			require.True(t, errors.As(err, &fe), "%v", err)
			require.Len(t, fe.Failed, 1, "%v", err)
			f := fe.Failed[0]
			assert.Equal(t, "dump:PUB.order-line", f.ID)
			assert.Equal(t, tt.calls, f.Attempt)
			assert.Equal(t, tt.calls, dumpsOf(oe, "PUB.order-line"))
			assert.Contains(t, f.Err, tt.want, "its message")
			if tt.calls == 1 {
				assert.Contains(t, f.Err, "not tried again")
			}
		})
	}
}
