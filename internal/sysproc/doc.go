// Package sysproc names a process so that it can be found again by a
// later oedl invocation: its PID together with the time it started
// (/proc/PID/stat field 22, clock ticks since boot) and the boot it belongs
// to (/proc/sys/kernel/random/boot_id). The kernel gives a PID to another
// process once the first is gone; the start time and boot tell the two
// apart, so that a resume never takes a stranger for a utility of the
// killed run, and never signals one.
//
// It also finds processes by a variable of their initial environment
// (/proc/PID/environ): oedl gives every utility it starts a marker naming
// its work directory, which covers the instant between a utility's start
// and the journal record of its PID, and whatever the utility starts
// itself.
//
// Linux only: elsewhere nothing is known (Of fails, Alive is false,
// WithEnv finds nothing) and oedl falls back to waiting until the
// databases are free.
package sysproc
