package eta

import (
	"encoding/json"
	"os"
	"syscall"
	"time"

	"github.com/oedl/oedl/internal/atomicfile"
	"github.com/oedl/oedl/internal/estimate"
	"github.com/oedl/oedl/internal/event"
)

// TraceLine is one forecast in the trace: what it was given and the plan
// of the work left it simulated. The ETA's error is only measurable after
// the run; the trace says which jobs the forecast got wrong.
type TraceLine struct {
	Time    time.Time                   `json:"time"`
	ETA     *event.ETA                  `json:"eta"`
	Running map[string]estimate.Running `json:"running"`
	Jobs    []estimate.JobForecast      `json:"jobs"`
}

// trace appends one forecast to TracePath (the forecasts run one at a
// time, on Run's goroutine).
func (t *Tracker) trace(ev event.Event, left estimate.Left, f *estimate.Forecast) error {
	data, err := json.Marshal(TraceLine{Time: ev.Time, ETA: ev.ETA, Running: left.Running, Jobs: f.Jobs})
	if err != nil {
		return err
	}
	// In the work directory, appended to as oedl's logs are: never
	// through a link, nor into a file with a second name (a resume's work
	// directory is not checked again; safety trial 7).
	out, err := os.OpenFile(t.cfg.TracePath, os.O_CREATE|os.O_WRONLY|os.O_APPEND|syscall.O_NOFOLLOW, 0o644)
	if err != nil {
		return err
	}
	if err := atomicfile.OneName(out); err != nil {
		out.Close()
		return err
	}
	if _, err := out.Write(append(data, '\n')); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
