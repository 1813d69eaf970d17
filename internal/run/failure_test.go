package run

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/execx"
)

// TestDiskFullNamesTheFile: of a utility that filled its disk, the DBA
// reads the line with errno 28, which names the file (and so the disk),
// whatever the language and wherever the utility put it: idxbuild ends
// with "Index rebuild complete.  1 error(s) encountered.", which was all
// a failed run said of a full target disk.
func TestDiskFullNamesTheFile(t *testing.T) {
	tests := []struct {
		name, output, want string
	}{
		{"idxbuild, the error before its summary",
			"Start 2 threads for the area. (14536)\nSYSTEM ERROR: I/O error writing the sort file: ** Error writing /data/db_8.d1, errno = 28: no space left on device. (oesim)\nIndex rebuild complete.  1 error(s) encountered.Elapsed time:0.004\n",
			"SYSTEM ERROR: I/O error writing the sort file: ** Error writing /data/db_8.d1, errno = 28: no space left on device. (oesim)"},
		{"in Portuguese, the last of two",
			"** Erro ao gravar /w/a.bd, errno = 28: sem espaço. (oesim)\n** Erro ao gravar /w/b.bd, errno = 28: sem espaço. (oesim)\nfim\n",
			"** Erro ao gravar /w/b.bd, errno = 28: sem espaço. (oesim)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := stepRunner(func(_ context.Context, c execx.Cmd) (execx.Result, error) {
				fmt.Fprint(c.Log, tt.output)
				return execx.Result{Output: tt.output, ExitCode: 1}, fmt.Errorf("exit 1: %w", execx.ErrExit)
			})
			e, _, log := progressExecutor(t, r)
			_, err := e.runStep(context.Background(), "idxbuild", step{argv: []string{"/dlc/bin/proutil", "/db/new", "-C", "idxbuild", "all"}}, time.Minute, log, nil)
			var jerr *JobError
			require.True(t, errors.As(err, &jerr), "%v", err)
			assert.Equal(t, event.ReasonDiskFull, jerr.Cause)
			assert.Equal(t, tt.want, jerr.Message)
		})
	}
}
