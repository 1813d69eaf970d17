//go:build linux

package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/oedl/oedl/internal/simtest"
)

// cursorUp is CSI n A, what the live screen writes to redraw itself in
// place. A dumb terminal (Emacs' M-x shell, a serial console, a web
// console) cannot move the cursor: each redraw lands below the last as
// escape-ridden garbage.
const cursorUp = "A\x1b[J"

// TestDemoOnDumbTerminal runs oedl demo on a pty (this test binary,
// re-executed) with TERM=dumb: the run is shown as plain lines, with no
// cursor movement. With TERM=xterm on the same pty the live screen is
// shown, which proves the pty is taken for a terminal at all.
func TestDemoOnDumbTerminal(t *testing.T) {
	if args, ok := os.LookupEnv("OEDL_DUMB_TERM_ARGS"); ok {
		os.Exit(Execute(context.Background(), SystemStreams(), strings.Split(args, "\n")))
	}
	if testing.Short() {
		t.Skip("builds oesim and runs oedl demo twice")
	}
	oesim := simtest.Oesim(t)
	for _, tc := range []struct {
		term       string
		liveScreen bool
	}{
		{"dumb", false},
		{"xterm-256color", true},
	} {
		t.Run(tc.term, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "demo")
			args := []string{"demo", "--dir", dir, "--profile", "sports", "--scale", "1MB", "--oesim", oesim}
			out, code := runOnSilentPty(t, "^TestDemoOnDumbTerminal$", "TERM="+tc.term,
				"OEDL_DUMB_TERM_ARGS="+strings.Join(args, "\n"))
			assert.Equal(t, 0, code, "%q", out)
			assert.Contains(t, string(out), "verified:", "it ran")
			if tc.liveScreen {
				assert.Contains(t, string(out), "\x1b[", "the live screen on a terminal that can show it")
				return
			}
			assert.NotContains(t, string(out), cursorUp, "the live screen on a dumb terminal")
			assert.NotContains(t, string(out), "\x1b[", "escape sequences on a dumb terminal")
			assert.Contains(t, string(out), "phase dump+load", "the plain lines")
		})
	}
}

func TestLiveScreenTerminal(t *testing.T) {
	for _, tc := range []struct {
		tty  bool
		term string
		want bool
	}{
		{true, "xterm-256color", true},
		{true, "screen", true},
		{true, "", true}, // TERM unset (a bare su -c): bubbletea's ANSI defaults
		{true, "dumb", false},
		{true, "DUMB", false},
		{false, "xterm", false},
		{false, "dumb", false},
	} {
		assert.Equal(t, tc.want, liveScreenTerminal(tc.tty, tc.term), "tty %v TERM=%q", tc.tty, tc.term)
	}
}
