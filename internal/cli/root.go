// Package cli holds the cobra commands of oedl. Each command is an options
// struct, a NewCmdX constructor that binds flags to it, and an xRun function
// that does the work through IOStreams, so that tests run commands in
// process with buffers for stdin, stdout and stderr.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
)

// IOStreams are the standard streams of a command.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer // data (and --json) only
	ErrOut io.Writer // messages, progress, the TUI
	// IsTerminal reports whether ErrOut is an interactive terminal that can
	// show the TUI (a dumb one cannot: liveScreenTerminal); the TUI is shown
	// only then.
	IsTerminal bool
}

// SystemStreams are the process's streams.
func SystemStreams() *IOStreams {
	return &IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr, IsTerminal: liveScreenTerminal(isTerminal(os.Stderr), os.Getenv("TERM"))}
}

// NewRootCmd builds the oedl command tree.
func NewRootCmd(io *IOStreams) *cobra.Command {
	root := &cobra.Command{
		Use:   "oedl",
		Short: "Plan, run, estimate and verify OpenEdge binary dump/load migrations",
		Long: `oedl runs an OpenEdge database dump/load: it plans a better storage layout from
tabanalys, dumps and loads every table in parallel, rebuilds the indexes with
parameters derived from the machine, and proves with tabanalys that no record
was lost. It drives whatever $DLC points to: a licensed OpenEdge or oesim.

` + configHelp,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       Version(),
		// Flags a site always sets come from a config file (config.go);
		// the command line wins over it.
		PersistentPreRunE: func(c *cobra.Command, _ []string) error { return applyConfig(c, os.Getenv) },
	}
	root.SetVersionTemplate(versionText())
	root.SetIn(io.In)
	root.SetOut(io.Out)
	root.SetErr(io.ErrOut)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &ExitError{Code: ExitUsage, Err: fmt.Errorf("%w\nSee '%s --help'.", err, c.CommandPath())}
	})
	root.SetHelpCommand(newHelpCmd())
	root.AddCommand(
		NewCmdDemo(io),
		NewCmdPlan(io),
		NewCmdEstimate(io),
		NewCmdCalibrate(io),
		NewCmdPrepare(io),
		NewCmdRun(io),
		NewCmdStatus(io),
		NewCmdVerify(io),
		NewCmdReport(io),
	)
	return root
}

// Main runs oedl with the process's arguments and returns the exit code.
func Main() int {
	ctx, stop := stopContext()
	defer stop()
	streams := SystemStreams()
	return Execute(ctx, streams, os.Args[1:])
}

// stopContext ends when a signal asks oedl to stop: Ctrl-C, SIGTERM, and
// SIGHUP, which the terminal sends when it goes away (the DBA's ssh
// session dropped in the middle of the outage). By default SIGHUP killed
// oedl at once, as kill -9 does: no end record, the brokers and utilities
// left running. Now the run stops as it does for Ctrl-C and --resume
// continues it; to keep a run going without its terminal, start it in
// tmux, screen or nohup.
//
// SIGPIPE is taken too, and dropped, so that it stops nothing: Go's
// runtime otherwise kills the process at a write to a closed stdout or
// stderr, and a --json consumer that went away (jq killed, `| head`, a
// log shipper restarted) ended the run with exit 141 and no word. Taken,
// the write fails with EPIPE, which the printers keep, and the run goes
// on (docs/decisions.md). signal.Notify, not signal.Ignore: an ignored
// signal stays ignored in the utilities oedl starts.
//
// A signal oedl was started with ignored stays ignored: `nohup oedl run`
// (docs/run.md's way to keep a run going without its terminal) starts it
// with SIGHUP ignored, and taking SIGHUP undid that, so the dropped ssh
// session stopped the run nohup was for; a `&` job of a script is started
// with SIGINT ignored in the same way.
func stopContext() (context.Context, context.CancelFunc) {
	pipe := make(chan os.Signal, 1)
	signal.Notify(pipe, syscall.SIGPIPE)
	stops := []os.Signal{syscall.SIGTERM}
	for _, sig := range []os.Signal{os.Interrupt, syscall.SIGHUP} {
		if !signal.Ignored(sig) {
			stops = append(stops, sig)
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), stops...)
	return ctx, func() {
		stop()
		signal.Stop(pipe)
	}
}

// Execute runs the command tree with args and returns the exit code. The
// error, if any, is printed on ErrOut.
func Execute(ctx context.Context, streams *IOStreams, args []string) int {
	root := NewRootCmd(streams)
	root.SetArgs(args)
	cmd, err := root.ExecuteContextC(ctx)
	if err != nil && cmd == root {
		// The root runs nothing: its errors are an unknown command or
		// arguments it cannot place, bad usage.
		err = WithCode(ExitUsage, fmt.Errorf("%w\nSee 'oedl --help'.", err))
	}
	if stdoutClosed(err) {
		return ExitBrokenPipe
	}
	if err != nil {
		if ctx.Err() != nil && exitCode(err) != ExitUsage && exitCode(err) != ExitInterrupted {
			err = &ExitError{Code: ExitInterrupted, Err: fmt.Errorf("interrupted: %w", err)}
		}
		fmt.Fprintf(streams.ErrOut, "oedl: %v\n", err)
	}
	return exitCode(err)
}

// stdoutClosed is a command that failed writing to a stdout whose reader
// went away (`oedl estimate | head -1`): it ends as SIGPIPE ended it
// before oedl took that signal (stopContext), silently with 141, as the
// shell's other commands do. Only a write to os.Stdout: a broken pipe to a
// utility or a remote host is a failure like any other.
func stdoutClosed(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && pe.Op == "write" && pe.Path == os.Stdout.Name() && errors.Is(err, syscall.EPIPE)
}

// newHelpCmd is cobra's help command, except that an unknown topic is bad
// usage (exit 2), as an unknown command is.
func newHelpCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "help [command]",
		Short: "Help about any command",
		RunE: func(c *cobra.Command, args []string) error {
			cmd, _, err := c.Root().Find(args)
			if cmd == nil || err != nil {
				return UsageError("unknown help topic %q\nSee 'oedl --help'.", strings.Join(args, " "))
			}
			cmd.InitDefaultHelpFlag()
			return cmd.Help()
		},
	}
}
