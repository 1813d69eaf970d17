package openedge

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseDFile(t *testing.T) {
	trailer := ".\nPSC\nfilename=_User\nrecords=%s\nldbname=db\n.\n0000000030\n"
	tests := []struct {
		name, in string
		want     [][]string
		err      string // a fragment of the error, "" = none
	}{
		{"two records", "\"a\" \"x\" \"A\"\n\"b\" \"y\" \"B b\"\n" + strings.Replace(trailer, "%s", "0000000000002", 1),
			[][]string{{"a", "x", "A"}, {"b", "y", "B b"}}, ""},
		{"doubled quote and newline in a field", "\"v\" \"n\" \"SELECT \"\"x\"\"\nFROM t\"\n" + strings.Replace(trailer, "%s", "1", 1),
			[][]string{{"v", "n", "SELECT \"x\"\nFROM t"}}, ""},
		{"unknown value", "\"a\" ? \"A\"\n.\n", [][]string{{"a", Unknown, "A"}}, ""},
		{"CRLF lines", "\"a\" \"x\" \"A\"\r\n.\r\nPSC\r\nrecords=1\r\n.\r\n0000000012\r\n", [][]string{{"a", "x", "A"}}, ""},
		{"no trailer", "\"a\" \"x\" \"A\"\n", [][]string{{"a", "x", "A"}}, ""},
		// The Data Administration's user dump (prodict/dump/_dmpuser.p with
		// dmptrail.i) writes a trailer of cpstream= alone: no records= to check.
		{"cpstream-only trailer", "\"a\" \"x\" \"A\"\n.\nPSC\ncpstream=UNDEFINED\n.\n0000000014\n", [][]string{{"a", "x", "A"}}, ""},
		{"empty table", ".\nPSC\nrecords=0000000000000\n.\n0000000002\n", nil, ""},
		{"short record", "\"a\" \"x\"\n.\n", nil, "f.d:1: 2 fields, want 3"},
		{"unterminated quote", "\"a\" \"x\" \"A\n", nil, "f.d:1: unterminated"},
		{"count differs", "\"a\" \"x\" \"A\"\n" + strings.Replace(trailer, "%s", "2", 1), nil, "records=2, the file holds 1"},
		{"text after the offset", ".\nPSC\n.\n0000000002\nmore\n", nil, "f.d:5: unexpected \"more\""},
		{"bad trailer line", ".\nPSC\nnot a pair\n", nil, "f.d:3: trailer line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := ParseDFile(strings.NewReader(tt.in), "f.d", 3)
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, d.Records)
		})
	}
}

func TestWriteDFileRoundTrip(t *testing.T) {
	recs := [][]string{{"a", "p\"q", "line1\nline2"}, {"b", Unknown, ""}}
	var b bytes.Buffer
	require.NoError(t, WriteDFile(&b, "_User", "sports", recs, time.Date(2026, 11, 27, 3, 0, 0, 0, time.UTC)))
	d, err := ParseDFile(&b, "x.d", 3)
	require.NoError(t, err)
	assert.Equal(t, recs, d.Records)
	assert.Equal(t, "_User", d.Trailer["filename"])
	assert.Equal(t, "0000000000002", d.Trailer["records"])
}

func TestSecurityRoundTrip(t *testing.T) {
	s := Security{
		Users:  []User{{ID: "bob", Password: "h2", Name: "Bob"}, {ID: "alice", Password: "h1", Name: "Alice"}},
		Grants: []Grant{{Grantee: "bob", Object: "PUB.customer", Privileges: "SELECT,UPDATE"}, {Grantee: "alice", Privileges: "DBA"}},
		Views:  []View{{Owner: "PUB", Name: "v1", Text: "SELECT * FROM PUB.customer"}},
	}
	dir := t.TempDir()
	require.NoError(t, WriteSecurity(dir, "db", s, time.Now()))
	got, err := ReadSecurity(dir)
	require.NoError(t, err)
	s.Sort()
	assert.Equal(t, s, got)
	assert.Equal(t, "2 users, 2 grants, 1 view", got.String())
}

// FuzzParseDFile: the parser never panics; whatever parses, written back,
// parses to the same records.
func FuzzParseDFile(f *testing.F) {
	f.Add([]byte("\"a\" \"x\" \"A\"\n.\nPSC\nrecords=1\n.\n0000000012\n"))
	f.Add([]byte("\"v\" ? \"SELECT \"\"x\"\"\nFROM t\"\r\n.\r\n"))
	f.Add([]byte(".\nPSC\nfilename=_User\n.\n0000000002\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ParseDFile(bytes.NewReader(data), "fuzz.d", 3)
		if err != nil {
			return
		}
		var b bytes.Buffer
		require.NoError(t, WriteDFile(&b, "t", "db", d.Records, time.Unix(0, 0)))
		again, err := ParseDFile(&b, "again.d", 3)
		require.NoError(t, err, "%q", b.String())
		assert.Equal(t, d.Records, again.Records)
	})
}
