package cli

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/oedl/oedl/internal/sim/msg"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// oedl plan --source on a database whose files the DBA's user may not
// open: the utility's (43) with errno 13 (EACCES) is a precondition (exit
// 3) with what to do, decided from the number in either language; it was
// exit 1 with "non-zero exit" (new-user trial 5). So is errno 30 (EROFS),
// the source on a read-only filesystem (new-user trial 6). Another errno is
// the utility's failure as before.
func TestPlanSourceCannotOpen(t *testing.T) {
	dir := t.TempDir()
	dlc, tba, df := sourceModeFixture(t, dir)
	src := filepath.Join(dir, "prod")
	tests := []struct {
		name  string
		lang  msg.Lang
		errno int
		code  int
		want  string
	}{
		{"permission denied", msg.English, 13, ExitPrecondition, "as the database's owner"},
		{"permission denied, in Portuguese", msg.Portuguese, 13, ExitPrecondition, "as the database's owner"},
		{"permission denied, in German", msg.German, 13, ExitPrecondition, "as the database's owner"},
		{"operation not permitted", msg.English, 1, ExitPrecondition, "as the database's owner"},
		{"an I/O error is the utility's failure", msg.English, 5, ExitFailed, "errno = 5"},
		// A source on a read-only filesystem (a snapshot mounted ro): the
		// utility cannot create DB.lk beside it. It was exit 1, "non-zero
		// exit" (new-user trial 6).
		{"read-only filesystem", msg.English, 30, ExitPrecondition, "read-only filesystem"},
		{"read-only filesystem, in Portuguese", msg.Portuguese, 30, ExitPrecondition, "mount it read-write"},
		{"read-only filesystem, in German", msg.German, 30, ExitPrecondition, "mount it read-write"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			line := msg.Builtin(tt.lang).Sprintf("43", src+".db", tt.errno)
			fake := &fakeUtilities{report: mustRead(t, tba), df: mustRead(t, df), refuse: "OpenEdge Release 12.8\n" + line + "\n"}
			var stderr bytes.Buffer
			out := filepath.Join(t.TempDir(), "plan")
			opts := &PlanOptions{IO: &IOStreams{Out: &bytes.Buffer{}, ErrOut: &stderr}, Runner: fake,
				Source: src, DLC: dlc, Out: out,
				BlockSize: 8192, Large: "1GB", Medium: "100MB", Headroom: 20, MaxExtent: "2GB", Cores: 4, Memory: "8GB"}
			err := planRun(context.Background(), opts)
			var ee *ExitError
			require.True(t, errors.As(err, &ee), "%v", err)
			assert.Equal(t, tt.code, ee.Code, "%v", err)
			assert.Contains(t, err.Error(), strings.TrimPrefix(line, "** "), "the utility's own message")
			assert.Contains(t, err.Error(), tt.want)
			assert.NoDirExists(t, out, "nothing written")
		})
	}
}
