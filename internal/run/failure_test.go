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
		// Real OpenEdge: (290)'s errno is the first number of its text
		// ("I/O error 28"), (6091) is a full disk whatever it says
		// (Progress KB 18401, P22954); the words are never read.
		{"(290) I/O error 28, en",
			"Processing area 8 : (11463)\nSYSTEM ERROR: I/O error 28 in bkioWrite, ret -1, file 9(/db/new_8.d1), addr 8192. (290)\nIndex rebuild complete.  1 error(s) encountered.Elapsed time:0.004\n",
			"SYSTEM ERROR: I/O error 28 in bkioWrite, ret -1, file 9(/db/new_8.d1), addr 8192. (290)"},
		{"(290) I/O error 28, pt",
			"ERRO DE SISTEMA: erro de E/S 28 em bkioWrite, ret -1, arquivo 9(/db/new_8.d1), end 8192. (290)\nfim\n",
			"ERRO DE SISTEMA: erro de E/S 28 em bkioWrite, ret -1, arquivo 9(/db/new_8.d1), end 8192. (290)"},
		{"(6091), de",
			"bkioWrite:Nicht genug Plattenplatz bei write, fd 9, len 16384, offset 1073741824, Datei /db/new_8.d1. (6091)\nEnde\n",
			"bkioWrite:Nicht genug Plattenplatz bei write, fd 9, len 16384, offset 1073741824, Datei /db/new_8.d1. (6091)"},
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

// TestNotDiskFullByTheWords: the errno decides, not a 28 elsewhere: a
// (290) of errno 5 whose address is 28, a count of 28 records.
func TestNotDiskFullByTheWords(t *testing.T) {
	for _, out := range []string{
		"SYSTEM ERROR: I/O error 5 in bkioRead, ret -1, file 9(/db/new_28.d1), addr 28. (290)\n",
		"Dumped 28 records. (13932)\n",
		"** Cannot find or open file /db/x28.d1, errno = 2. (43)\n",
	} {
		assert.False(t, diskFull(out), out)
	}
}
