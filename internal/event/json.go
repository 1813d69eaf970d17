package event

import (
	"bytes"
	"encoding/json"
)

// MarshalJSON writes the event with its fields that apply: zero values are
// omitted, except the final records and bytes of a dump or a load, which
// a job_finished always carries (an empty table's load finished with 0
// records, and a script summing records must not read null).
func (e Event) MarshalJSON() ([]byte, error) {
	type plain Event // without this method
	var v any = plain(e)
	if e.Kind == JobFinished && (e.JobKind == "dump" || e.JobKind == "load") {
		v = struct {
			plain
			Records int64 `json:"records"`
			Bytes   int64 `json:"bytes"`
		}{plain(e), e.Records, e.Bytes}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // error texts hold "<" and "&" as the utilities print them
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}
