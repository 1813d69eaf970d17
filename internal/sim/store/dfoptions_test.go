package store

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// An UPDATE statement's option lines replace the kept line that sets the
// same thing (a trigger: the same event) or come after the kept lines; an
// object that kept none (oesim gen) keeps none.
func TestMergeOptions(t *testing.T) {
	kept := []string{`  FORMAT "x(8)"`, `  LABEL "Name"`, `  TABLE-TRIGGER "CREATE" NO-OVERRIDE PROCEDURE "a.p" CRC "?" `}
	tests := []struct {
		name         string
		kept, update []string
		want         []string
	}{
		{"replace", kept, []string{`  LABEL "Nome"`},
			[]string{`  FORMAT "x(8)"`, `  LABEL "Nome"`, kept[2]}},
		{"keyword case", kept, []string{`  label "Nome"`},
			[]string{`  FORMAT "x(8)"`, `  label "Nome"`, kept[2]}},
		{"new option after the kept ones", kept, []string{`  ENCRYPTION YES`},
			append(append([]string(nil), kept...), `  ENCRYPTION YES`)},
		{"same trigger event", kept, []string{`  TABLE-TRIGGER "CREATE" OVERRIDE PROCEDURE "b.p" CRC "?" `},
			[]string{kept[0], kept[1], `  TABLE-TRIGGER "CREATE" OVERRIDE PROCEDURE "b.p" CRC "?" `}},
		{"another trigger event", kept, []string{`  TABLE-TRIGGER "DELETE" OVERRIDE PROCEDURE "d.p" CRC "?" `},
			append(append([]string(nil), kept...), `  TABLE-TRIGGER "DELETE" OVERRIDE PROCEDURE "d.p" CRC "?" `)},
		{"none kept", nil, []string{`  LABEL "x"`}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := append([]string(nil), tt.kept...)
			assert.Equal(t, tt.want, MergeOptions(tt.kept, tt.update))
			assert.Equal(t, before, append([]string(nil), tt.kept...), "the kept lines are not changed in place")
		})
	}
}

// What oesim models is written from the schema: a table moved to another
// area, a LOB in another area, an index's flags and components.
func TestToDFWritesModelledOptions(t *testing.T) {
	names := map[int]string{6: "Schema Area", 7: "Data", 8: "Lobs", 9: "Index"}
	tbl := &Table{Name: "Doc", Area: 7, Options: []string{`  AREA "Old"`, `  DUMP-NAME "doc"`},
		Fields: []Field{{Name: "Id", Type: "integer", Order: 10, Options: []string{`  FORMAT ">>9"`}},
			{Name: "Body", Type: "clob", Order: 20, LobArea: 8, Options: []string{`  POSITION 3`, `  LOB-AREA "OldLobs"`}}},
		Indexes: []*Index{{Name: "Id", Area: 9, Unique: true, Primary: true, Active: false,
			Fields:  []IndexField{{Name: "Id"}},
			Options: []string{`  AREA "Old"`, `  UNIQUE`, `  DESCRIPTION "key"`, `  INDEX-FIELD "Gone" ASCENDING `}}}}
	d := tbl.ToDF(func(n int) string { return names[n] })
	assert.Equal(t, []string{`  AREA "Data"`, `  DUMP-NAME "doc"`}, d.Options)
	assert.Equal(t, []string{`  FORMAT ">>9"`}, d.Fields[0].Options)
	assert.Equal(t, []string{`  POSITION 3`, `  LOB-AREA "Lobs"`}, d.Fields[1].Options)
	ix := d.Indexes[0]
	assert.Equal(t, []string{`  DESCRIPTION "key"`}, ix.Options)
	assert.Equal(t, "Index", ix.Area)
	assert.True(t, ix.Inactive)
	assert.Equal(t, "Id", ix.Fields[0].Name)
	assert.Equal(t, []string{`  AREA "Old"`, `  DUMP-NAME "doc"`}, tbl.Options, "the schema's lines are not changed")
}
