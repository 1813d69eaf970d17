package journal

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/event"
	"github.com/oedl/oedl/internal/sysproc"
)

func writeAll(t *testing.T, path string, recs ...Record) {
	t.Helper()
	w, _, err := Open(path)
	require.NoError(t, err)
	for _, r := range recs {
		require.NoError(t, w.Append(r))
	}
	require.NoError(t, w.Close())
}

func TestAppendAndRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	writeAll(t, path,
		Record{Job: "dump:PUB.customer", Kind: "dump", State: Started, Table: "PUB.customer"},
		Record{Job: "dump:PUB.customer", Kind: "dump", State: Done, Table: "PUB.customer",
			Files: []File{{Path: "/w/dump/customer.bd", Size: 1234}}, Records: 1117, CountKnown: true, Marker: 6254},
	)
	recs, err := Read(path)
	require.NoError(t, err)
	require.Len(t, recs, 2)
	assert.Equal(t, int64(1), recs[0].Seq)
	assert.Equal(t, int64(2), recs[1].Seq)
	assert.Equal(t, Version, recs[1].V)
	assert.Equal(t, int64(1117), recs[1].Records)
	assert.Equal(t, 6254, recs[1].Marker)

	// A second invocation continues the sequence.
	writeAll(t, path, Record{Job: RunJob, State: Started, Message: "resumed"})
	recs, err = Read(path)
	require.NoError(t, err)
	require.Len(t, recs, 3)
	assert.Equal(t, int64(3), recs[2].Seq)
}

func TestReadTornAndCorrupt(t *testing.T) {
	good := `{"v":1,"seq":1,"job":"a","state":"started"}` + "\n" + `{"v":1,"seq":2,"job":"a","state":"done"}` + "\n"
	tests := []struct {
		name    string
		data    string
		want    int
		wantErr string
	}{
		{name: "clean", data: good, want: 2},
		{name: "empty", data: "", want: 0},
		{name: "torn last line", data: good + `{"v":1,"seq":3,"job":"b","sta`, want: 2},
		{name: "whole record without newline is not claimed", data: good + `{"v":1,"seq":3,"job":"b","state":"started"}`, want: 2},
		{name: "garbage last line with newline", data: good + "\x00\x00\x00\n", want: 2},
		{name: "corrupt middle line", data: `{"v":1,"seq":1,"job":"a","state":"started"}` + "\n" + "{oops\n" + `{"v":1,"seq":3,"job":"a","state":"done"}` + "\n",
			wantErr: "journal.jsonl:2: corrupt journal line"},
		{name: "record without a state", data: `{"v":1,"seq":1,"job":"a"}` + "\n" + good, wantErr: ":1: corrupt"},
		{name: "out of order", data: `{"v":1,"seq":5,"job":"a","state":"started"}` + "\n" + `{"v":1,"seq":2,"job":"a","state":"done"}` + "\n",
			wantErr: ":2: sequence 2 after 5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs, err := Parse(strings.NewReader(tt.data), "journal.jsonl")
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Len(t, recs, tt.want)
		})
	}
}

func TestOpenCutsTornTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), FileName)
	writeAll(t, path, Record{Job: "a", State: Started})
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"v":1,"seq":2,"job":"a","st`) // kill -9 mid-write
	require.NoError(t, err)
	require.NoError(t, f.Close())

	w, recs, err := Open(path)
	require.NoError(t, err)
	assert.Len(t, recs, 1)
	require.NoError(t, w.Append(Record{Job: "a", State: Done}))
	require.NoError(t, w.Close())

	recs, err = Read(path)
	require.NoError(t, err, "the torn tail must not become a corrupt middle line")
	require.Len(t, recs, 2)
	assert.Equal(t, Done, recs[1].State)
	assert.Equal(t, int64(2), recs[1].Seq)
}

func load(id, table, area string, s State) Record {
	return Record{Job: id, Kind: "load", Table: table, Area: area, State: s}
}

func TestReplay(t *testing.T) {
	tests := []struct {
		name      string
		recs      []Record
		dirty     []string
		done      []string
		notDone   []string
		twice     []string
		loadCount map[string]int // table -> completed loads since the last repair
	}{
		{
			name: "clean loads",
			recs: []Record{
				load("load:PUB.a", "PUB.a", "Data", Started), load("load:PUB.a", "PUB.a", "Data", Done),
				load("load:PUB.b", "PUB.b", "Data", Started), load("load:PUB.b", "PUB.b", "Data", Done),
			},
			done:      []string{"load:PUB.a", "load:PUB.b"},
			loadCount: map[string]int{"PUB.a": 1, "PUB.b": 1},
		},
		{
			name: "killed mid-load dirties the area",
			recs: []Record{
				load("load:PUB.a", "PUB.a", "Data", Started), load("load:PUB.a", "PUB.a", "Data", Done),
				load("load:PUB.b", "PUB.b", "Data", Started),
			},
			dirty:   []string{"Data"},
			done:    []string{"load:PUB.a"},
			notDone: []string{"load:PUB.b"},
		},
		{
			name: "failed load dirties the area; a repair undoes every load in it",
			recs: []Record{
				load("load:PUB.a", "PUB.a", "Data", Started), load("load:PUB.a", "PUB.a", "Data", Done),
				load("load:PUB.c", "PUB.c", "Other", Started), load("load:PUB.c", "PUB.c", "Other", Done),
				load("load:PUB.b", "PUB.b", "Data", Started), load("load:PUB.b", "PUB.b", "Data", Failed),
				{Job: "repair:Data:1", Kind: "repair", Area: "Data", State: Repair, Message: "load:PUB.b failed"},
				{Job: "repair:Data:1", Kind: "repair", Area: "Data", State: Started},
				{Job: "repair:Data:1", Kind: "repair", Area: "Data", State: Done},
				load("load:PUB.a", "PUB.a", "Data", Started), load("load:PUB.a", "PUB.a", "Data", Done),
			},
			done:      []string{"load:PUB.a", "load:PUB.c", "repair:Data:1"},
			notDone:   []string{"load:PUB.b"},
			loadCount: map[string]int{"PUB.a": 1, "PUB.c": 1, "PUB.b": 0},
		},
		{
			name: "repair started but killed keeps the area dirty",
			recs: []Record{
				load("load:PUB.b", "PUB.b", "Data", Started), load("load:PUB.b", "PUB.b", "Data", Failed),
				{Job: "repair:Data:1", Kind: "repair", Area: "Data", State: Started},
			},
			dirty:   []string{"Data"},
			notDone: []string{"load:PUB.b", "repair:Data:1"},
		},
		{
			name: "a table loaded twice without a repair is reported",
			recs: []Record{
				load("load:PUB.a", "PUB.a", "Data", Started), load("load:PUB.a", "PUB.a", "Data", Done),
				load("load:PUB.a", "PUB.a", "Data", Started), load("load:PUB.a", "PUB.a", "Data", Done),
			},
			done:  []string{"load:PUB.a"},
			twice: []string{"PUB.a"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for i := range tt.recs {
				tt.recs[i].Seq = int64(i + 1)
			}
			r := Replay(tt.recs)
			assert.Equal(t, tt.dirty, nilIfEmpty(r.DirtyAreas()))
			for _, id := range tt.done {
				assert.True(t, r.IsDone(id), id)
			}
			for _, id := range tt.notDone {
				assert.False(t, r.IsDone(id), id)
			}
			assert.Equal(t, tt.twice, r.LoadedTwice())
			for table, n := range tt.loadCount {
				require.NotNil(t, r.Loads[LoadKey{table, 0}], table)
				assert.Equal(t, n, r.Loads[LoadKey{table, 0}].Count, table)
			}
		})
	}
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

func TestProven(t *testing.T) {
	dir := t.TempDir()
	bd := filepath.Join(dir, "customer.bd")
	require.NoError(t, os.WriteFile(bd, []byte("12345"), 0o644))
	recs := []Record{
		{Seq: 1, Job: "dump:PUB.customer", Kind: "dump", State: Done, Files: []File{{Path: bd, Size: 5}}},
		{Seq: 2, Job: "dump:PUB.order", Kind: "dump", State: Done, Files: []File{{Path: filepath.Join(dir, "order.bd"), Size: 9}}},
		{Seq: 3, Job: "load:PUB.x", Kind: "load", State: Done, Marker: 6256},
	}
	r := Replay(recs)
	ok, why := r.Proven("dump:PUB.customer")
	assert.True(t, ok, why)
	ok, why = r.Proven("dump:PUB.order")
	assert.False(t, ok)
	assert.Contains(t, why, "order.bd")
	ok, _ = r.Proven("load:PUB.x")
	assert.True(t, ok)

	require.NoError(t, os.WriteFile(bd, []byte("12"), 0o644)) // truncated by someone
	ok, why = r.Proven("dump:PUB.customer")
	assert.False(t, ok)
	assert.Contains(t, why, "is 2 bytes, the journal recorded 5")
}

func TestRecordEvent(t *testing.T) {
	tests := []struct {
		rec  Record
		want event.Kind
	}{
		{Record{Job: RunJob, State: Started}, event.RunStarted},
		{Record{Job: RunJob, State: Done}, event.RunFinished},
		{Record{Job: "dump:PUB.a", State: Started}, event.JobStarted},
		{Record{Job: "dump:PUB.a", State: Done, Files: []File{{Size: 3}, {Size: 4}}}, event.JobFinished},
		{Record{Job: "load:PUB.a", State: Failed, Err: "boom", Log: "/w/logs/x.log"}, event.JobFailed},
		{Record{Job: "repair:Data:1", Area: "Data", State: Repair}, event.Warning},
	}
	for _, tt := range tests {
		e := tt.rec.Event()
		assert.Equal(t, tt.want, e.Kind, tt.rec.Job)
	}
	e := Record{Job: "dump:PUB.a", State: Done, Files: []File{{Size: 3}, {Size: 4}}, Records: 9}.Event()
	assert.Equal(t, int64(7), e.Bytes)
	assert.Equal(t, int64(9), e.Records)
}

// FuzzParse: the reader never panics, and whatever it accepts re-encodes
// into a journal it accepts again with the same records.
func FuzzParse(f *testing.F) {
	f.Add([]byte(`{"v":1,"seq":1,"job":"a","state":"started"}` + "\n"))
	f.Add([]byte(`{"v":1,"seq":1,"job":"a","state":"started"}` + "\n" + `{"v":1,"seq":2,"job":"a","sta`))
	f.Add([]byte("{oops\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, err := Parse(bytes.NewReader(data), "fuzz")
		if err != nil {
			return
		}
		dir := t.TempDir()
		path := filepath.Join(dir, FileName)
		w, _, err := Open(path)
		require.NoError(t, err)
		for _, r := range recs {
			require.NoError(t, w.Append(r))
		}
		require.NoError(t, w.Close())
		again, err := Read(path)
		require.NoError(t, err)
		require.Len(t, again, len(recs))
		for i := range recs {
			assert.Equal(t, recs[i].Job, again[i].Job)
			assert.Equal(t, recs[i].State, again[i].State)
		}
	})
}

func TestReplayReloadUnderNewJobID(t *testing.T) {
	recs := []Record{
		load("load:PUB.a", "PUB.a", "Data", Started), load("load:PUB.a", "PUB.a", "Data", Done),
		load("load:PUB.b", "PUB.b", "Data", Started), load("load:PUB.b", "PUB.b", "Data", Failed),
		{Job: "repair:Data:1", Kind: "repair", Area: "Data", State: Started},
		{Job: "repair:Data:1", Kind: "repair", Area: "Data", State: Done},
	}
	r := Replay(recs)
	assert.Equal(t, []LoadKey{{"PUB.a", 0}, {"PUB.b", 0}}, r.AreaLoads("Data"), "the repair undid a, b never finished")
	recs = append(recs,
		load("load:PUB.a@r1", "PUB.a", "Data", Started), load("load:PUB.a@r1", "PUB.a", "Data", Done),
		load("load:PUB.b@r1", "PUB.b", "Data", Started), load("load:PUB.b@r1", "PUB.b", "Data", Done))
	r = Replay(recs)
	assert.True(t, r.LoadDone("PUB.a", 0))
	assert.True(t, r.LoadDone("PUB.b", 0))
	assert.Empty(t, r.LoadedTwice())
	assert.Empty(t, r.AreaLoads("Data"))
}

func TestReplaySections(t *testing.T) {
	sec := func(n int, s State) Record {
		return Record{Job: fmt.Sprintf("load:PUB.big:%d", n), Kind: "load", Table: "PUB.big", Section: n, Area: "Big", State: s}
	}
	r := Replay([]Record{sec(1, Started), sec(1, Done), sec(2, Started), sec(2, Done), sec(2, Started), sec(2, Done)})
	assert.True(t, r.LoadDone("PUB.big", 1))
	assert.False(t, r.LoadDone("PUB.big", 0))
	assert.Equal(t, []string{"PUB.big section 2"}, r.LoadedTwice())
}

// A target created again (a no-integrity rebuild) holds nothing: every
// load, repair and sequences/security load of the one before is undone,
// no area is dirty, and a table loaded into each is not loaded twice.
func TestReplayTargetCreatedAgain(t *testing.T) {
	created := func(s State) Record { return Record{Job: "create-target", Kind: "create-target", State: s} }
	before := []Record{
		created(Started), created(Done),
		load("load:PUB.a", "PUB.a", "Data", Started), load("load:PUB.a", "PUB.a", "Data", Done),
		{Job: "load-sequences", Kind: "load-sequences", State: Started}, {Job: "load-sequences", Kind: "load-sequences", State: Done},
		load("load:PUB.b", "PUB.b", "Idx", Started), load("load:PUB.b", "PUB.b", "Idx", Failed),
		load("load:PUB.c", "PUB.c", "Data", Started), // killed in flight
		{Job: "rebuild-target", Kind: "rebuild-target", State: Repair, Message: "target rebuilt: no-integrity crash"},
	}
	tests := []struct {
		name       string
		after      []Record
		dirty      []string
		aDone, seq bool
	}{
		{"decided, not yet created", nil, []string{"Data", "Idx"}, false, true},
		{"created again half way", []Record{created(Started)}, []string{"Data", "Idx"}, false, true},
		{"created again", []Record{created(Started), created(Done)}, []string{}, false, false},
		{"created again and a reloaded", []Record{created(Started), created(Done),
			load("load:PUB.a@r1", "PUB.a", "Data", Started), load("load:PUB.a@r1", "PUB.a", "Data", Done)}, []string{}, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := Replay(append(append([]Record{}, before...), tt.after...))
			assert.Equal(t, tt.dirty, r.DirtyAreas())
			assert.Equal(t, tt.aDone, r.LoadDone("PUB.a", 0))
			assert.Equal(t, tt.seq, r.IsDone("load-sequences"))
			assert.Empty(t, r.LoadedTwice())
			assert.NotContains(t, r.Dirty, "", "a rebuild decision names no area")
		})
	}
}

func TestResumedInPlace(t *testing.T) {
	p1, p2 := &sysproc.ID{PID: 10, Start: 1}, &sysproc.ID{PID: 20, Start: 2}
	recs := []Record{
		{Job: RunJob, State: Started, Proc: p1},
		{Job: "dump:a", State: Started},
		{Job: RunJob, State: Failed},
		{Job: RunJob, State: Started, Proc: p1}, // the same oedl started again: in place
		{Job: RunJob, State: Failed},
		{Job: RunJob, State: Started, Proc: p2}, // the DBA's --resume
		{Job: RunJob, State: Started},           // a record without its process
	}
	assert.Equal(t, map[int]bool{3: true}, ResumedInPlace(recs))
}
