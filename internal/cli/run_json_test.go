package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/tui"
)

// failingWriter is a stdout whose reader went away.
type failingWriter struct{ err error }

func (f failingWriter) Write([]byte) (int, error) { return 0, f.err }

// TestWarnJSONStopped: when --json's consumer goes away the run goes on
// (TestClosedStdoutDoesNotKillOEDL) and stderr says the events stopped and
// where the whole run is read; a stream written to the end says nothing.
func TestWarnJSONStopped(t *testing.T) {
	for _, tc := range []struct {
		name string
		sink func() *tui.JSON
		want []string
	}{
		{name: "no --json", sink: func() *tui.JSON { return nil }},
		{name: "every event written", sink: func() *tui.JSON { return tui.NewJSON(&strings.Builder{}) }},
		{name: "consumer gone", sink: func() *tui.JSON { return tui.NewJSON(failingWriter{err: syscall.EPIPE}) },
			want: []string{"warning: --json", "broken pipe", "the run went on", "oedl report --work '/w ork' --json"}},
		{name: "disk full", sink: func() *tui.JSON { return tui.NewJSON(failingWriter{err: errors.New("no space left on device")}) },
			want: []string{"warning: --json", "no space left on device"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := tc.sink()
			if j != nil {
				j.Emit(event.Event{Kind: event.RunStarted})
				j.Close()
			}
			var w strings.Builder
			warnJSONStopped(&w, j, "/w ork")
			if tc.want == nil {
				assert.Empty(t, w.String())
				return
			}
			for _, s := range tc.want {
				assert.Contains(t, w.String(), s)
			}
		})
	}
}

// TestStdoutClosed: a command whose stdout's reader went away ends silently
// with 141, as SIGPIPE ended it before oedl took the signal; a broken pipe
// to anything else is a failure like any other.
func TestStdoutClosed(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"stdout's reader gone", &fs.PathError{Op: "write", Path: os.Stdout.Name(), Err: syscall.EPIPE}, true},
		{"wrapped", fmt.Errorf("estimate: %w", &fs.PathError{Op: "write", Path: os.Stdout.Name(), Err: syscall.EPIPE}), true},
		{"a utility's pipe", &fs.PathError{Op: "write", Path: "|1", Err: syscall.EPIPE}, false},
		{"stdout full", &fs.PathError{Op: "write", Path: os.Stdout.Name(), Err: syscall.ENOSPC}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, stdoutClosed(tc.err))
		})
	}
}
