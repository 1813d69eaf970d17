package tui

import (
	"cmp"
	"slices"
	"sort"
	"time"

	"github.com/oedl/oedl/internal/event"
)

// JobStatus is where a job is.
type JobStatus string

const (
	StatusQueued  JobStatus = "queued" // waiting for its dependencies, a slot, or a retry
	StatusRunning JobStatus = "running"
	StatusDone    JobStatus = "done"
	StatusFailed  JobStatus = "failed"  // for good: no attempt follows
	StatusSkipped JobStatus = "skipped" // done by an earlier run (resume)
	// StatusCancelled: stopped by an interrupt; not a failure, --resume
	// runs it again.
	StatusCancelled JobStatus = "cancelled"
)

// Job is what State knows about one job.
type Job struct {
	ID           string        `json:"id"`
	Kind         string        `json:"kind"`
	Table        string        `json:"table,omitempty"`
	Area         string        `json:"area,omitempty"`
	Status       JobStatus     `json:"status"`
	Attempt      int           `json:"attempt,omitempty"`
	Started      time.Time     `json:"started,omitzero"`
	Ended        time.Time     `json:"ended,omitzero"`
	Elapsed      time.Duration `json:"elapsed_ns,omitempty"`
	Records      int64         `json:"records,omitempty"` // so far, or final
	Bytes        int64         `json:"bytes,omitempty"`
	TotalRecords int64         `json:"total_records,omitempty"`
	TotalBytes   int64         `json:"total_bytes,omitempty"`
	Rate         float64       `json:"bytes_per_second,omitempty"` // recent, while running
	Err          string        `json:"error,omitempty"`
	Reason       string        `json:"reason,omitempty"` // of the last failure (event.Reason*)
	Log          string        `json:"log,omitempty"`
	// Failures counts its failed attempts; Recovered: it failed and a
	// later attempt went through.
	Failures  int  `json:"failures,omitempty"`
	Recovered bool `json:"recovered"`
	// Again is why it runs (or ran) once more without a failure of its
	// own: AgainStop, its earlier attempt was stopped by an interrupt and
	// a resume runs it again; AgainRepair, a repair undid it. "" when it
	// did not, or when only its attempt number says so (a killed run's).
	Again string `json:"again,omitempty"`
	// Stalled is how long a running dump or load has made no progress,
	// once that is StallAfter or more (0 otherwise).
	Stalled time.Duration `json:"stalled_ns,omitempty"`

	contrib  int64 // bytes this job adds to its kind's BytesDone
	lastAt   time.Time
	lastSeen int64
	moved    time.Time // its figures last moved (or it started)
}

// Failure is one failed attempt.
type Failure struct {
	Time    time.Time `json:"time"`
	Job     string    `json:"job"`
	Kind    string    `json:"kind,omitempty"`
	Table   string    `json:"table,omitempty"`
	Attempt int       `json:"attempt,omitempty"`
	Err     string    `json:"error"`
	Reason  string    `json:"reason,omitempty"` // event.Reason*
	Log     string    `json:"log,omitempty"`
	// Retrying: another attempt was to follow. Recovered: a later attempt
	// of the job went through (RecoveredOn says which).
	Retrying    bool `json:"retrying,omitempty"`
	Recovered   bool `json:"recovered"`
	RecoveredOn int  `json:"recovered_on,omitempty"`
}

// Progress is one bar: the tables and bytes of one kind of work.
type Progress struct {
	Kind       string `json:"kind"`
	Tables     int    `json:"tables"`
	TablesDone int    `json:"tables_done"`
	Jobs       int    `json:"jobs"`
	JobsDone   int    `json:"jobs_done"`
	Bytes      int64  `json:"bytes"`
	BytesDone  int64  `json:"bytes_done"`
}

// Fraction is BytesDone/Bytes in [0,1]; tables, then jobs, when bytes are
// unknown (idxbuild replayed from the journal has no size).
func (p Progress) Fraction() float64 {
	switch {
	case p.Bytes > 0:
		return clamp01(float64(p.BytesDone) / float64(p.Bytes))
	case p.Tables > 0:
		return clamp01(float64(p.TablesDone) / float64(p.Tables))
	case p.Jobs > 0:
		return clamp01(float64(p.JobsDone) / float64(p.Jobs))
	}
	return 0
}

// Counts are jobs by status. A job is one table's dump or load (or one
// whole-database step) over all its attempts: a load tried three times
// that failed is one failed job. FailedTables counts the tables among
// the failed jobs; Recovered, the jobs that failed and then went through.
type Counts struct {
	Done         int `json:"done"`
	Running      int `json:"running"`
	Queued       int `json:"queued"`
	Failed       int `json:"failed"`
	FailedTables int `json:"failed_tables"`
	Skipped      int `json:"skipped"`
	Cancelled    int `json:"cancelled"`
	Recovered    int `json:"recovered"`
	Stalled      int `json:"stalled"`
}

// Why a job runs again without a failure of its own (Job.Again).
const (
	AgainStop   = "stop"   // its attempt was stopped by an interrupt; a resume runs it again
	AgainRepair = "repair" // a repair undid it (its area truncated, its load failed)
)

// progressKinds are the bars, in the order work flows.
var progressKinds = []string{"dump", "load", "idxbuild"}

// kindTally keeps a Progress up to date in O(1) per event.
type kindTally struct {
	Progress
	planBytes int64              // total bytes from RunStarted, a floor for dump and load
	since     time.Time          // when the first job of the kind started
	tables    map[string]*[2]int // table -> {jobs, jobs done}
}

// keepFailures is how many failures and warnings the picture keeps.
const keepFailures = 5

// State folds events into the picture of a run. The zero value is not
// ready: use NewState. It is not safe for concurrent use; the printers
// guard it.
type State struct {
	Phase   string
	Started time.Time
	// startSeen: Started came from a run_started event, not from the
	// first tick (Advance), which may come before it.
	startSeen bool
	Now       time.Time // the latest event time, or Advance
	Finished  bool
	Err       string // the run's error, once finished
	Status    string // how the run ended (event.Status*), once finished
	// Since is when the outage began: the first invocation's start, so
	// the outage clock counts across resumes. Invocation is which `oedl
	// run` this is (1 the first, 2 after one resume...).
	Since      time.Time
	Invocation int
	// Settings that shape the queue (run_started): dump_jobs, load_jobs,
	// loads_per_area, for why work waits.
	Settings map[string]int64
	// StallAfter: a running dump or load whose figures have not moved for
	// this long is flagged stalled. Default DefaultStallAfter.
	StallAfter time.Duration
	// Versions of the programs (run_started).
	OEDLVersion, OpenEdgeVersion string
	Verify                       *event.VerifySummary // run_finished

	phases []PhaseSpan
	// restarting: a resume in place began (run_started InPlace) and has
	// not yet entered a phase the strip does not show; phaseAgain: the
	// last phase event was one of those, folded into the strip.
	restarting, phaseAgain bool
	// inPlace counts the invocations that were resumes in place.
	inPlace int

	jobs     map[string]*Job
	running  map[string]*Job
	counts   Counts
	tally    map[string]*kindTally
	failures []Failure
	warnings []string
	// The run's own estimate before it started (run_started), and the
	// latest of its live estimates (eta events).
	before *event.Estimate
	live   *event.ETA
	liveAt time.Time
}

// DefaultStallAfter is how long a running dump or load may show no
// progress before the screen flags it. A dump's files and a load's read
// offset move every second on a working utility (oedl measures them four
// times a second); 20 s without a byte is a utility waiting on something:
// a lock, a full disk, a hung NFS mount. It is far below --job-timeout,
// which ends the job; this only tells the DBA to look.
const DefaultStallAfter = 20 * time.Second

// PhaseSpan is one phase of the run on its clock: from the phase event
// that entered it to the next one (End is zero while it runs).
type PhaseSpan struct {
	Name       string    `json:"name"`
	Start, End time.Time `json:"-"`
	// Invocation is the `oedl run` it ran in (a resume goes through its
	// phases again); State how it ended: PhaseDone, PhaseStopped,
	// PhaseFailed, or PhaseRunning while End is zero.
	Invocation int    `json:"-"`
	State      string `json:"-"`
	// Restarts: the run started again in place while in this phase
	// (run_started InPlace), which went on through the restart.
	Restarts int `json:"-"`
}

// How a phase ended (PhaseSpan.State).
const (
	PhaseRunning = "running"
	PhaseDone    = "done"    // the next phase began, or the run ended verified in it
	PhaseStopped = "stopped" // the run was interrupted in it (--resume goes on), or killed
	PhaseFailed  = "failed"  // the run failed in it
)

// NewState returns an empty picture.
func NewState() *State {
	s := &State{jobs: map[string]*Job{}, running: map[string]*Job{}, tally: map[string]*kindTally{}, StallAfter: DefaultStallAfter}
	for _, k := range progressKinds {
		s.tally[k] = &kindTally{Progress: Progress{Kind: k}, tables: map[string]*[2]int{}}
	}
	return s
}

// Apply folds one event into the picture.
func (s *State) Apply(e event.Event) {
	s.Advance(e.Time)
	switch e.Kind {
	case event.RunStarted:
		// A run that resumes in place (run.Run) starts again without having
		// finished: its clock keeps running from the first start.
		// A tick may have set Started before this event was read: the
		// event's time wins.
		// So does one restarted in place: replayed from the journal, its
		// attempt ended (run_finished) before it started again.
		fresh := (!s.startSeen || s.Finished) && !e.InPlace
		if e.InPlace {
			s.inPlace++
		}
		if e.InPlace && len(s.phases) > 0 {
			s.restarting = true
			s.phases[len(s.phases)-1].Restarts++
		}
		if fresh {
			s.Started = e.Time
		}
		s.startSeen = true
		switch {
		case !e.Since.IsZero():
			s.Since = e.Since
		case s.Since.IsZero():
			s.Since = e.Time // a journal replayed: its first start
		}
		if e.Attempt > 0 {
			s.Invocation = e.Attempt
		} else {
			s.Invocation++
		}
		if e.Settings != nil {
			s.Settings = e.Settings
		}
		s.OEDLVersion, s.OpenEdgeVersion = cmp.Or(e.OEDLVersion, s.OEDLVersion), cmp.Or(e.OpenEdgeVersion, s.OpenEdgeVersion)
		// A resume's estimate is of the work left (run.openingEstimate):
		// against this clock, only when the clock starts with it.
		if e.Estimate != nil && (fresh || s.before == nil) {
			s.before = e.Estimate
		}
		s.live = nil // an invocation's estimates are its own
		s.Finished, s.Err, s.Status = false, "", ""
		for _, k := range []string{"dump", "load"} {
			s.tally[k].planBytes = e.TotalBytes
		}
	case event.RunFinished:
		s.Finished, s.Err, s.Status, s.Verify = true, e.Err, e.Status, e.Verify
		if s.Status == "" { // an older journal's end
			s.Status = event.StatusVerified
			if e.Err != "" {
				s.Status = event.StatusFailed
			}
		}
		s.endPhase(e.Time, phaseEnd(s.Status))
	case event.Phase:
		s.applyPhase(e)
	case event.Warning:
		s.warnings = appendKeep(s.warnings, e.Message, keepFailures)
	case event.ETAKind:
		s.applyETA(e)
	case event.JobQueued, event.JobStarted, event.JobProgress, event.JobFinished,
		event.JobFailed, event.JobRetry, event.JobSkipped, event.JobCancelled:
		s.applyJob(e)
	}
}

// Advance moves the clock without an event (the TUI's tick, or `oedl status`
// on a live run), so that elapsed time and the ETA's countdown keep moving
// while a long job is silent.
func (s *State) Advance(now time.Time) {
	if now.After(s.Now) {
		s.Now = now
	}
	if s.Started.IsZero() && !now.IsZero() {
		s.Started = now
	}
}

func (s *State) applyJob(e event.Event) {
	j := s.jobs[e.Job]
	if j == nil {
		j = &Job{ID: e.Job, Kind: e.JobKind, Table: e.Table, Area: e.Area}
		s.jobs[e.Job] = j
		if t := s.tally[j.Kind]; t != nil {
			t.Jobs++
		}
		s.setStatus(j, StatusQueued)
		if t := s.tally[j.Kind]; t != nil && j.Table != "" {
			s.tableJobs(t, j.Table, +1, 0)
		}
	}
	if e.TotalBytes > 0 || e.TotalRecords > 0 {
		s.setTotals(j, e.TotalRecords, e.TotalBytes)
	}
	if e.Attempt > 0 {
		j.Attempt = e.Attempt
	}
	if e.Log != "" {
		j.Log = e.Log
	}
	switch e.Kind {
	case event.JobQueued, event.JobRetry:
		if e.Kind == event.JobRetry && finished(j.Status) {
			j.Again = AgainRepair // a repair undid it: loaded again
		}
		if j.Status != StatusRunning {
			s.setStatus(j, StatusQueued)
		}
	case event.JobStarted:
		if e.Reason == event.ReasonCancelled {
			// A resume's run of a job its earlier invocation stopped: the
			// runner says so, this picture never saw the stop.
			j.Again = AgainStop
		}
		if t := s.tally[j.Kind]; t != nil && t.since.IsZero() {
			t.since = e.Time
		}
		j.Started, j.Ended, j.Err = e.Time, time.Time{}, ""
		j.Records, j.Bytes, j.Rate = 0, 0, 0
		j.lastAt, j.lastSeen, j.moved = e.Time, 0, e.Time
		s.setStatus(j, StatusRunning)
	case event.JobProgress:
		if e.Records > j.Records || e.Bytes > j.Bytes {
			j.moved = e.Time
		}
		j.Records = max(j.Records, e.Records)
		s.observeBytes(j, e.Time, e.Bytes)
	case event.JobFinished:
		// The final counts, when the runner parsed them from the
		// utility's output; otherwise the plan's.
		if e.Records > 0 {
			j.Records = e.Records
		} else {
			j.Records = max(j.Records, j.TotalRecords)
		}
		if e.Bytes > 0 {
			j.Bytes = e.Bytes
		} else {
			j.Bytes = max(j.Bytes, j.TotalBytes)
		}
		s.end(j, e, StatusDone)
		if j.Failures > 0 && !j.Recovered {
			j.Recovered = true
			s.counts.Recovered++
			s.markRecovered(j)
		}
	case event.JobSkipped:
		s.end(j, e, StatusSkipped)
	case event.JobFailed:
		j.Err, j.Reason = e.Err, e.Reason
		j.Failures++
		if e.Retrying {
			// Not the job's end: it waits for its next attempt.
			s.end(j, e, StatusQueued)
		} else {
			s.end(j, e, StatusFailed)
		}
		s.recordFailure(j, e)
	case event.JobCancelled:
		s.end(j, e, StatusCancelled)
		j.Again = AgainStop
	}
	s.recount(j)
}

// markRecovered marks the failures of a job that went through at last.
func (s *State) markRecovered(j *Job) {
	for i := range s.failures {
		if f := &s.failures[i]; f.Job == j.ID {
			f.Recovered, f.RecoveredOn = true, j.Attempt
		}
	}
}

// applyPhase enters a phase. A resume in place goes through the phases
// its failed attempt went through again (preflight, then the one it failed
// in): those are not new, the strip showed each once and the repeat read
// as a second run. The phase the attempt failed in goes on, through the
// restart, until the run enters one the strip does not have.
func (s *State) applyPhase(e event.Event) {
	s.Phase = e.Phase
	s.phaseAgain = false
	if s.restarting && slices.ContainsFunc(s.phases, func(p PhaseSpan) bool { return p.Name == e.Phase }) {
		last := &s.phases[len(s.phases)-1]
		last.End, last.State = time.Time{}, PhaseRunning
		s.Phase, s.phaseAgain = last.Name, true
		return
	}
	s.restarting = false
	s.endPhase(e.Time, PhaseDone)
	s.phases = append(s.phases, PhaseSpan{Name: e.Phase, Start: e.Time, Invocation: s.Invocation, State: PhaseRunning})
}

// endPhase closes the running phase at t, ended as state.
func (s *State) endPhase(t time.Time, state string) {
	if n := len(s.phases); n > 0 && s.phases[n-1].End.IsZero() {
		s.phases[n-1].End, s.phases[n-1].State = t, state
	}
}

// phaseEnd is how the phase a run ended in ended: as the run did (a
// killed run's end, replayed, is a failure with its own error).
func phaseEnd(status string) string {
	switch status {
	case event.StatusVerified:
		return PhaseDone
	case event.StatusInterrupted:
		return PhaseStopped
	}
	return PhaseFailed
}

func (s *State) end(j *Job, e event.Event, st JobStatus) {
	j.Ended = e.Time
	j.Elapsed = e.Elapsed
	if j.Elapsed == 0 && !j.Started.IsZero() {
		j.Elapsed = e.Time.Sub(j.Started)
	}
	j.Rate = 0
	s.setStatus(j, st)
}

// observeBytes updates a running job's bytes and its rate: an exponential
// average of the rate between progress events, so one slow flush does not
// swing the ETA.
func (s *State) observeBytes(j *Job, at time.Time, bytes int64) {
	if bytes < j.Bytes {
		return // a late, reordered progress event
	}
	if dt := at.Sub(j.lastAt).Seconds(); dt > 0 {
		r := float64(bytes-j.lastSeen) / dt
		if j.Rate == 0 {
			j.Rate = r
		} else {
			j.Rate = 0.7*j.Rate + 0.3*r
		}
		j.lastAt, j.lastSeen = at, bytes
	}
	j.Bytes = bytes
}

func (s *State) setTotals(j *Job, records, bytes int64) {
	if records > 0 {
		j.TotalRecords = records
	}
	if bytes > 0 && bytes != j.TotalBytes {
		if t := s.tally[j.Kind]; t != nil {
			t.Bytes += bytes - j.TotalBytes
		}
		j.TotalBytes = bytes
	}
}

func (s *State) setStatus(j *Job, st JobStatus) {
	if j.Status == st {
		return
	}
	s.count(j.Status, -1)
	s.count(st, +1)
	was := j.Status
	j.Status = st
	if st == StatusRunning {
		s.running[j.ID] = j
	} else {
		delete(s.running, j.ID)
	}
	if t := s.tally[j.Kind]; t != nil {
		if wasDone, isDone := finished(was), finished(st); wasDone != isDone {
			d := 1
			if wasDone {
				d = -1
			}
			t.JobsDone += d
			if j.Table != "" {
				s.tableJobs(t, j.Table, 0, d)
			}
		}
	}
}

func finished(st JobStatus) bool { return st == StatusDone || st == StatusSkipped }

// tableJobs adds to a table's job and done counts and keeps TablesDone in
// step: a table is done when every job of the kind for it is (a threaded
// dump adds loads section by section, which can make a table undone again).
func (s *State) tableJobs(t *kindTally, table string, jobs, done int) {
	c := t.tables[table]
	if c == nil {
		c = &[2]int{}
		t.tables[table] = c
		t.Tables++
	}
	before := c[0] > 0 && c[1] == c[0]
	c[0] += jobs
	c[1] += done
	after := c[0] > 0 && c[1] == c[0]
	switch {
	case after && !before:
		t.TablesDone++
	case before && !after:
		t.TablesDone--
	}
}

func (s *State) count(st JobStatus, d int) {
	switch st {
	case StatusDone:
		s.counts.Done += d
	case StatusRunning:
		s.counts.Running += d
	case StatusQueued:
		s.counts.Queued += d
	case StatusFailed:
		s.counts.Failed += d
	case StatusSkipped:
		s.counts.Skipped += d
	case StatusCancelled:
		s.counts.Cancelled += d
	}
}

// recount updates the job's contribution to its kind's BytesDone.
func (s *State) recount(j *Job) {
	t := s.tally[j.Kind]
	if t == nil {
		return
	}
	var c int64
	switch j.Status {
	case StatusDone, StatusSkipped:
		// The plan's size when known: a dump's files are a little larger
		// than the table data, and the bar must end at 100 %, not 118 %.
		c = j.TotalBytes
		if c == 0 {
			c = j.Bytes
		}
	case StatusRunning:
		c = j.Bytes
		if j.TotalBytes > 0 {
			c = min(c, j.TotalBytes)
		}
	}
	t.BytesDone += c - j.contrib
	j.contrib = c
}

func (s *State) recordFailure(j *Job, e event.Event) {
	// The dispatcher and the runner may both report one failure; the
	// second one usually adds the log path.
	// It is the same failure when no start of the job came in between.
	for i := range s.failures {
		f := &s.failures[i]
		if f.Job == j.ID && !f.Time.Before(j.Started) {
			f.Log = cmp.Or(f.Log, j.Log)
			f.Err = cmp.Or(f.Err, e.Err)
			f.Attempt = max(f.Attempt, j.Attempt)
			f.Reason = cmp.Or(f.Reason, e.Reason)
			return
		}
	}
	f := Failure{Time: e.Time, Job: j.ID, Kind: j.Kind, Table: j.Table, Attempt: j.Attempt, Err: e.Err, Reason: e.Reason,
		Log: j.Log, Retrying: e.Retrying}
	s.failures = appendKeep(s.failures, f, keepFailures)
}

func appendKeep[T any](xs []T, x T, n int) []T {
	xs = append(xs, x)
	if len(xs) > n {
		xs = append(xs[:0], xs[len(xs)-n:]...)
	}
	return xs
}

// Elapsed is the time since the run started.
func (s *State) Elapsed() time.Duration {
	if s.Started.IsZero() {
		return 0
	}
	return s.Now.Sub(s.Started)
}

// Counts are the jobs by status, with the failed tables and the stalled
// jobs counted now.
func (s *State) Counts() Counts {
	c := s.counts
	tables := map[string]bool{}
	for _, j := range s.jobs {
		if j.Status == StatusFailed && j.Table != "" {
			tables[j.Table] = true // a whole-database step is a job, not a table
		}
	}
	c.FailedTables = len(tables)
	for _, j := range s.running {
		if s.stalledFor(j) > 0 {
			c.Stalled++
		}
	}
	return c
}

// stalledFor is how long a running dump or load has shown no progress,
// when that is StallAfter or more; 0 otherwise. idxbuild and the other
// steps print nothing while they work, so silence says nothing of them.
func (s *State) stalledFor(j *Job) time.Duration {
	if j.Status != StatusRunning || (j.Kind != "dump" && j.Kind != "load") || j.moved.IsZero() || s.StallAfter <= 0 {
		return 0
	}
	if d := s.Now.Sub(j.moved); d >= s.StallAfter {
		return d
	}
	return 0
}

// Outage is the time since the outage began (Since): it counts across
// resumes, where Elapsed is this invocation's.
func (s *State) Outage() time.Duration {
	if s.Since.IsZero() {
		return s.Elapsed()
	}
	return s.Now.Sub(s.Since)
}

// Phases are the phases entered so far, in order; the last one's End is
// zero while the run is in it.
func (s *State) Phases() []PhaseSpan { return append([]PhaseSpan(nil), s.phases...) }

// Throughput is the bytes per second the running dumps and loads move
// now: the sum of their recent rates.
func (s *State) Throughput() float64 {
	var r float64
	for _, j := range s.running {
		if j.Kind == "dump" || j.Kind == "load" {
			r += j.Rate
		}
	}
	return r
}

// Progress returns the dump, load and idxbuild bars.
func (s *State) Progress() []Progress {
	out := make([]Progress, 0, len(progressKinds))
	for _, k := range progressKinds {
		t := s.tally[k]
		p := t.Progress
		p.Bytes = max(p.Bytes, t.planBytes)
		if p.Bytes > 0 {
			p.BytesDone = min(p.BytesDone, p.Bytes)
		}
		out = append(out, p)
	}
	return out
}

// Overall is the fraction of all the bytes to move (dumped, loaded and
// indexed) that is done.
func (s *State) Overall() float64 {
	total := s.bytesTotal()
	if total == 0 {
		// No bytes to count (empty tables): the bars' own measure, tables
		// or jobs, averaged; "overall 0%" stood above three bars at 100%.
		ps := s.Progress()
		if len(ps) == 0 {
			return 0
		}
		var sum float64
		for _, p := range ps {
			sum += p.Fraction()
		}
		return clamp01(sum / float64(len(ps)))
	}
	return clamp01(float64(s.bytesDone()) / float64(total))
}

func (s *State) bytesDone() int64 {
	var n int64
	for _, k := range progressKinds {
		n += s.tally[k].BytesDone
	}
	return n
}

func (s *State) bytesTotal() int64 {
	var n int64
	for _, k := range progressKinds {
		t := s.tally[k]
		n += max(t.Bytes, t.planBytes)
	}
	return n
}

// Running returns the running jobs, longest running first.
func (s *State) Running() []Job {
	out := make([]Job, 0, len(s.running))
	for _, j := range s.running {
		c := *j
		c.Stalled = s.stalledFor(j)
		out = append(out, c)
	}
	sort.Slice(out, func(a, b int) bool {
		if !out[a].Started.Equal(out[b].Started) {
			return out[a].Started.Before(out[b].Started)
		}
		return out[a].ID < out[b].ID
	})
	return out
}

// Job returns what is known about one job, or false.
func (s *State) Job(id string) (Job, bool) {
	j, ok := s.jobs[id]
	if !ok {
		return Job{}, false
	}
	return *j, true
}

// Failures are the last failures, oldest first.
func (s *State) Failures() []Failure { return append([]Failure(nil), s.failures...) }

// Warnings are the last warnings, oldest first.
func (s *State) Warnings() []string { return append([]string(nil), s.warnings...) }

func clamp01(f float64) float64 {
	if f != f { // NaN
		return 0
	}
	return max(0, min(1, f))
}
