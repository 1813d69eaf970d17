// Command blocker calls fault.HangNow or fault.CrashNow as the only
// goroutine of a program, the situation of an oesim utility, for
// TestBlockedProcessWaitsForItsKill.
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/oedl/oedl/internal/sim/fault"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: blocker hang|hang-cancelable|crash")
		os.Exit(2)
	}
	switch os.Args[1] {
	case "hang":
		_ = fault.HangNow(context.Background())
	case "hang-cancelable":
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel() // never reached: nothing cancels it before the kill
		_ = fault.HangNow(ctx)
	case "crash":
		fault.CrashNow()
	default:
		fmt.Fprintf(os.Stderr, "blocker: unknown mode %q\n", os.Args[1])
		os.Exit(2)
	}
	os.Exit(0) // never reached
}
