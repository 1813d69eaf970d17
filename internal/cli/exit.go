package cli

import (
	"context"
	"errors"
	"fmt"
)

// Exit codes, the same for every command (shared/design/cli.md).
const (
	ExitOK           = 0
	ExitFailed       = 1 // the work failed, or verify found a mismatch
	ExitUsage        = 2 // bad usage or bad input
	ExitPrecondition = 3 // database in use, DLC not found, no disk space
	ExitInterrupted  = 130
	ExitBrokenPipe   = 128 + 13 // stdout's reader went away: the shell's code for SIGPIPE (stdoutClosed)
)

// ExitError carries the exit code a command ends with.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// UsageError: bad usage or bad input (exit 2).
func UsageError(format string, a ...any) error {
	return &ExitError{Code: ExitUsage, Err: fmt.Errorf(format, a...)}
}

// PreconditionError: something outside oedl must change first (exit 3).
func PreconditionError(err error) error { return &ExitError{Code: ExitPrecondition, Err: err} }

// FailedError: the work failed (exit 1).
func FailedError(err error) error { return &ExitError{Code: ExitFailed, Err: err} }

// WithCode wraps err with code unless err already carries one.
func WithCode(code int, err error) error {
	if err == nil {
		return nil
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		return err
	}
	return &ExitError{Code: code, Err: err}
}

// exitCode maps an error to the process exit code.
func exitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var ee *ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	if errors.Is(err, context.Canceled) {
		return ExitInterrupted
	}
	return ExitFailed
}
