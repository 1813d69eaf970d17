// Package estimate predicts the outage window of a dump/load before the
// night: `oedl estimate`, `oedl calibrate` and `oedl run --dry-run`.
//
// # One scheduler, a simulated clock
//
// The estimate does not add up per-phase formulas. It builds the very job
// graph `oedl run` executes (schedule.Build, same options) and runs it
// through the same dispatcher (schedule.Dispatch, same queue rules: slots,
// loads per area, the exclusive idxbuild, longest path first) with a
// simulated executor instead of real utilities. A threaded dump adds the
// load of each .bd section as its bracket ends, exactly as the run does.
// So a scheduling change shows up in both, and the critical path and Gantt
// chart of an estimate look like the ones of the run report.
//
// # The cost model (Model)
//
// A job is a start-up (process start, connect, .bd header) followed by one
// stream of work per thread: core seconds, device bytes and device
// requests, from per-record and per-byte costs (performance-model.md §5).
// The simulator (sim, allocate) shares the machine between the streams
// that run at the same time: cores and the disk are each shared max-min
// fairly, and the rates are recomputed whenever a job starts or a stream
// ends. Overlap of dump and load, the effect of more jobs, cores or a
// faster disk, and the tail of one huge table all come out of that
// sharing; nothing is special-cased.
//
// These choices decide what the model can express:
//
//   - The disk has an MB/s and an IOPS ceiling (a mix of large sequential
//     and small random requests is charged for both), combined either as a
//     serial device (a request costs bytes/MBps + 1/IOPS; a local disk and
//     oesim's virtual disk) or as independent ceilings (a provisioned cloud
//     volume, as in seed 003).
//   - A single proutil stream computes and waits for its reads in turn, and
//     cannot go faster than its requests × the device latency: this is why
//     one stream leaves a fast disk idle and why overlap pays.
//   - A request a stream waits for is served after the request each
//     other stream doing I/O has queued (a device serves its queue in
//     arrival order): Hardware.DiskQueueMs, which calibrate measures. A
//     batch of tiny tables, whose commits are waited for one by one,
//     is not served at once beside streaming jobs.
//   - idxbuild is one multi-threaded job whose CPU work grows when
//     -threadnum × -mergethreads + -datascanthreads oversubscribe the cores.
//   - Each table a load call loads has its indexes deactivated, a schema
//     update under the target's schema lock: a third shared resource,
//     held by one stream at a time (with a core), so that a batch pays it
//     per member and concurrent loads one after the other. oedl run's own
//     CPU per job it journals is on the same cores as the utilities.
//
// # Priors and calibration
//
// DefaultModel holds priors fitted to the one complete public data point,
// seed 003 (14 GB, 873 tables, 8 cores, 4000 IOPS), reproduced within 15%
// for dump, load and index rebuild by TestSeed003Fit
// (testdata/hardware/seed003.json). Calibrate replaces them with
// measurements on this machine: timed single-stream dumps and loads of a
// sample (least squares for start-up, per-record and per-byte costs, CPU
// from the utilities' rusage), parallel loads for the disk's ceiling, the
// small tables through queues shaped like the run's (the disk traffic of a
// start-up), idxbuilds of an empty and of the loaded scratch database (per
// index, per byte, per key), one tabanalys. The source is only read.
//
// # Range
//
// The P50/P90 range is a Monte Carlo over the model: each sample draws a
// CPU, a disk and a start-up factor shared by all jobs and a factor per
// job (bootstrapped from the calibration's residuals when there are any),
// from a seeded generator per sample and per job, so it is reproducible
// and independent of goroutine scheduling.
//
// # Live
//
// Live keeps the estimate a run makes of its own graph and re-runs it over
// the work left (Live.Forecast: the jobs done skipped, the running ones
// first with what they have left), with the model's start-up and work
// costs corrected per group of jobs by the run's own jobs, each compared
// with the model's prediction under the concurrency it really had (a
// replay of the run so far on the model) and weighed against the prior by
// seconds of evidence (evidence.go). internal/eta runs it during `oedl
// run`: the ETA.
//
// docs/estimate.md has the parameters, the seed 003 fit and what it
// predicts for other machines; docs/benchmarks/estimate.md the figures.
package estimate
