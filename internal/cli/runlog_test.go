package cli

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"go.uber.org/zap/zapcore"
)

// failingSyncer is the run's log on a full disk.
type failingSyncer struct{}

func (failingSyncer) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }
func (failingSyncer) Sync() error               { return nil }

var _ zapcore.WriteSyncer = failingSyncer{}

// TestRunLogTroubleSaidOnce: the work disk full, every write to the run's
// log failed and zap printed its own line for each on stderr, with a Go
// clock reading in it ("2026-11-28 00:10:39.206271274 +0000 UTC
// m=+1.648959591 write error: ..."), among the run's lines (new-user trial
// 6). It is said once, in oedl's words, naming the log.
func TestRunLogTroubleSaidOnce(t *testing.T) {
	var errOut strings.Builder
	l := newRunLoggerTo(failingSyncer{}, "/w/oedl.log", &errOut)
	for range 3 {
		l.Info("job done")
	}
	got := errOut.String()
	assert.Equal(t, 1, strings.Count(got, "\n"), "said once:\n%s", got)
	assert.Contains(t, got, "warning: the run's log /w/oedl.log cannot be written")
	assert.Contains(t, got, "no space left on device")
	assert.NotContains(t, got, "m=+", "no Go clock reading")
}
