package run

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/execx"
)

// progresCalls records the directory and the $PROSTARTUP of every
// _progres call, the ABL sessions that read the startup file.
type progresCalls struct {
	execx.Runner
	mu    sync.Mutex
	calls []string // "dir: PROSTARTUP"
}

func (p *progresCalls) Run(ctx context.Context, c execx.Cmd) (execx.Result, error) {
	if filepath.Base(c.Path) == "_progres" {
		startup := os.Getenv("PROSTARTUP")
		for _, kv := range c.Env { // later entries win, as in execx
			if v, ok := strings.CutPrefix(kv, "PROSTARTUP="); ok {
				startup = v
			}
		}
		p.mu.Lock()
		p.calls = append(p.calls, c.Dir+": "+startup)
		p.mu.Unlock()
	}
	return p.Runner.Run(ctx, c)
}

// A relative $PROSTARTUP names a file from each session's current
// directory, and oedl's _progres calls run in the work directory, a
// scratch directory or the target's: the file checked (from oedl's
// directory, where the DBA set it) was not the one they read. Each now
// gets it absolute, the file checked. A relative -pf inside a startup file
// cannot be made so (OpenEdge reads it from the session's directory): it
// is refused, exit 3, naming the file and line.
func TestRelativeStartupPF(t *testing.T) {
	for _, c := range []struct {
		name, prostartup, site string
		err                    string
	}{
		{name: "relative $PROSTARTUP is handed over absolute", prostartup: "site.pf", site: "-d dmy -numsep 46\n"},
		{name: "relative -pf inside it is refused", prostartup: "CWD/site.pf", site: "-d dmy\n-pf more.pf\n",
			err: "CWD/site.pf:2: -pf more.pf is a relative name"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cfg := fakeSetup(t, testTables...)
			rec := &progresCalls{Runner: newFakeOE(cfg.Plan)}
			cfg.Runner = rec
			cwd := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(cwd, "site.pf"), []byte(c.site), 0o644))
			// what a session in the work directory would read instead
			require.NoError(t, os.WriteFile(filepath.Join(cwd, "more.pf"), []byte("-d dmy\n"), 0o644))
			t.Chdir(cwd)
			t.Setenv("PROSTARTUP", strings.ReplaceAll(c.prostartup, "CWD", cwd))
			_, err := Run(context.Background(), cfg)
			if c.err != "" {
				var pe *PreconditionError
				require.True(t, errors.As(err, &pe), "%v", err)
				assert.ErrorContains(t, err, strings.ReplaceAll(c.err, "CWD", cwd))
				assert.Empty(t, rec.calls)
				return
			}
			require.NoError(t, err)
			require.NotEmpty(t, rec.calls)
			for _, call := range rec.calls {
				dir, startup, _ := strings.Cut(call, ": ")
				assert.Equal(t, filepath.Join(cwd, "site.pf"), startup, "_progres in %s", dir)
			}
		})
	}
}
