package event

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMultiStampsAndFansOut(t *testing.T) {
	var a, b []Event
	m := Multi{SinkFunc(func(e Event) { a = append(a, e) }), SinkFunc(func(e Event) { b = append(b, e) })}
	fixed := time.Date(2026, 11, 22, 8, 0, 0, 0, time.UTC)

	m.Emit(Event{Kind: JobStarted, Job: "dump:PUB.customer"})
	m.Emit(Event{Kind: JobFinished, Job: "dump:PUB.customer", Time: fixed, V: 7})

	require.Len(t, a, 2)
	assert.Equal(t, a, b, "every sink sees the same events in the same order")
	assert.Equal(t, SchemaVersion, a[0].V, "the version is stamped when missing")
	assert.False(t, a[0].Time.IsZero(), "the time is stamped when missing")
	assert.Equal(t, 7, a[1].V, "a version already set is kept")
	assert.Equal(t, fixed, a[1].Time, "a time already set is kept")
}

func TestJSONOmitsWhatDoesNotApply(t *testing.T) {
	b, err := json.Marshal(Event{V: 1, Time: time.Unix(0, 0).UTC(), Kind: Phase, Phase: "dump"})
	require.NoError(t, err)
	assert.JSONEq(t, `{"v":1,"time":"1970-01-01T00:00:00Z","kind":"phase","phase":"dump"}`, string(b))
}

func TestStableID(t *testing.T) {
	for id, want := range map[string]string{
		"load:PUB.pt_mstr":         "load:PUB.pt_mstr",
		"load:PUB.pt_mstr@r2":      "load:PUB.pt_mstr",
		"load:PUB.orderline:3@r12": "load:PUB.orderline:3",
		"dump:PUB.tr_hist@r1":      "dump:PUB.tr_hist",
		"dump:PUB.a@rb":            "dump:PUB.a@rb", // not a number: part of the name
		"dump:PUB.a@r":             "dump:PUB.a@r",
		"repair:Data:2":            "repair:Data:2",
	} {
		assert.Equal(t, want, StableID(id), id)
	}
}

func TestJobFinishedAlwaysCarriesRecordsAndBytes(t *testing.T) {
	b, err := json.Marshal(Event{V: 1, Time: time.Unix(0, 0).UTC(), Kind: JobFinished, Job: "load:PUB.empty", JobKind: "load", Table: "PUB.empty", Attempt: 1})
	require.NoError(t, err)
	assert.JSONEq(t, `{"v":1,"time":"1970-01-01T00:00:00Z","kind":"job_finished","job":"load:PUB.empty","job_kind":"load","table":"PUB.empty","attempt":1,"records":0,"bytes":0}`, string(b))
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // as oedl run --json writes
	require.NoError(t, enc.Encode(Event{V: 1, Time: time.Unix(0, 0).UTC(), Kind: JobFinished, Job: "idxbuild", JobKind: "idxbuild", Err: "a < b & c"}))
	assert.JSONEq(t, `{"v":1,"time":"1970-01-01T00:00:00Z","kind":"job_finished","job":"idxbuild","job_kind":"idxbuild","error":"a < b & c"}`, buf.String())
	assert.Contains(t, buf.String(), "a < b & c", "not escaped for HTML")
}
