// Package vdisk is the virtual disk all oesim processes share: one device
// with a bandwidth (OESIM_DISK_MBPS, in MiB/s) and an operation rate
// (OESIM_DISK_IOPS), and a fixed start-up cost per utility run
// (OESIM_STARTUP_MS).
//
// Why. A dump/load plan is only as good as its model of the disk: eight
// parallel loads on a 4000-IOPS volume do not run eight times faster than
// one. On a test machine the real disk is fast and private, so oesim makes
// every utility draw its I/O from one simulated device; then the same
// plans, estimates and schedules that matter on slow hardware can be seen
// and tested on a laptop.
//
// Model. The device serves one request at a time, in arrival order. A
// request of b bytes and n operations needs b/MBps + n/IOPS seconds of
// device time (a rate of 0 means that dimension is free). Charge reserves
// that much device time starting at the later of now and the end of the
// last reservation, and sleeps until its reservation ends: the sleep is the
// simulated I/O. An idle device banks no credit. Two processes streaming at
// once each see half the bandwidth, and the total time is the total bytes
// over the bandwidth, as on a real saturated disk.
//
// Quantum. A booking on the shared device costs a few microseconds of
// system calls, too much to pay for every record. So a process books at
// least a quantum (1 ms of device time) at once and uses the surplus as
// credit for its next charges: charging every record stays cheap, no
// charge is ever free, and a process books at most one quantum too many.
//
// Sharing. The end of the last reservation is 8 bytes in the file
// vdisk.state in the oesim state directory ($OESIM_STATE, else
// $DLC/.oesim), read and advanced under flock(2), so reservations of all
// processes are serialised. With no state directory the device is private
// to the process. With both rates 0 (the default) nothing is charged and no
// file is touched, so the simulator runs at full speed.
//
// The clock and the sleep are injectable (Config.Clock), which is how the
// tests check the arithmetic without measuring time.
package vdisk
