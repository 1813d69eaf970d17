// Package vdisk is the virtual disk all oesim processes share: one device
// that follows the documented rules of a real one (OESIM_DISK_VOLUME: an
// EBS class or a local device, package volume), or a generic device with a
// bandwidth (OESIM_DISK_MBPS, in MiB/s) and an operation rate
// (OESIM_DISK_IOPS); and a fixed start-up cost per utility run
// (OESIM_STARTUP_MS).
//
// Why. A dump/load plan is only as good as its model of the disk: eight
// parallel loads on a 4000-IOPS volume do not run eight times faster than
// one, and a dump that fetches its records at random waits on every one.
// On a test machine the real disk is fast and private, so oesim makes
// every utility draw its I/O from one simulated device; then the same
// plans, estimates and schedules that matter on slow hardware can be seen
// and tested on a laptop, and oedl's estimate can be checked against a run
// on a disk of another kind than the one it was calibrated on.
//
// Requests. A utility says how it does its I/O, as a real one's requests
// reach the device: Sequential bytes (a table scan, a .bd written, the
// leaf level of an index) are merged by the kernel and the device into
// large requests (the device's maximum I/O size: 256 KiB on EBS SSD
// classes and the generic device, OESIM_DISK_MAX_IO_KB; 1 MiB on st1/sc1;
// the kernel's own on a local device); Random requests (a record fetched
// from a block away from the last ones, a log line) count one operation
// each. Reads in sequence are waited for in read-ahead windows, two at a
// time; random requests one at a time; pages written in sequence are
// written behind. OESIM_DISK_LATENCY_MS is the least time a waited request
// takes however idle the device.
//
// Ceilings. The generic device and a spinning disk serve one request at a
// time, a request of b bytes and n operations needing b/MBps + n/IOPS
// seconds. Other classes have separate ceilings: a bytes pipe and an
// operations pipe, each booked for its own share, the request done when
// both are. gp2 below 1000 GiB bursts to 3000 IOPS on a bucket of I/O
// credits, st1 and sc1 to their burst throughput on throughput credits:
// the bucket drains by what the burst serves beyond the baseline and fills
// at the baseline while idle (OESIM_DISK_GIB sizes the volume,
// OESIM_DISK_BURST_SPENT empties part of the bucket before the first
// request).
//
// Reservations. Charging reserves device time starting at the later of now
// and the end of the last reservation, and sleeps until it ends (or for
// the latency): the sleep is the simulated I/O. Two processes streaming at
// once each see half the bandwidth, and the total time is the total bytes
// over the bandwidth, as on a real saturated disk.
//
// Quantum. A booking on the shared device costs a few microseconds of
// system calls, too much to pay for every record. So a process books at
// least a quantum (1 ms of device time) at once and uses the surplus as
// credit for its next charges: charging every record stays cheap, no
// charge is ever free, and a process books at most one quantum too many.
//
// Sharing. The pipes' ends, the bucket and the counters are in the file
// vdisk.state in the oesim state directory ($OESIM_STATE, else
// $DLC/.oesim), read and advanced under flock(2), so reservations of all
// processes are serialised. Beside it, the file diskstats holds the
// device's counters (requests and sectors read and written, as the kernel
// counts them) as a /proc/diskstats line for the device "vdisk": what a
// tool reading a real disk's counters reads (oedl calibrate --diskstats).
// With no state directory the device is private to the process. With no
// rate and no class (the default) nothing is charged and no file is
// touched, so the simulator runs at full speed.
//
// The clock and the sleep are injectable (Config.Clock), which is how the
// tests check the arithmetic without measuring time.
package vdisk
