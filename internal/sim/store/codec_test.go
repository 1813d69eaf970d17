package store

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"testing"
	"time"

	"github.com/oedl/oedl/internal/openedge"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sampleControl is a schema the size of the 200 MB erp database: 470
// tables, about 20 fields and 4 indexes each.
func sampleControl(tables int) *Control {
	lo, hi := int64(1), int64(99)
	c := &Control{Format: ControlVersion, BlockSize: 8192, Codepage: "ISO8859-1", DFCodepage: "ibm850",
		Created: time.Date(2026, 11, 22, 7, 0, 0, 0, time.UTC), BIBlockKB: 8, BIClusterKB: 512, NextTable: tables + 1,
		Areas: []*Area{{Number: 3, Name: "Primary Recovery Area", Type: 'b', Extents: []Extent{{Path: "/db/x.b1"}}},
			{Number: 7, Name: "Data", Type: 'd', RPB: 64, BPC: 8, Extents: []Extent{{Path: "/db/x_7.d1", Fixed: true, SizeKB: 1024}, {Path: "/db/x_7.d2"}}}},
		Sequences: []*Sequence{{Name: "s1", Initial: 1, Increment: 5, Min: &lo, Max: &hi, Cycle: true, Current: 42,
			Options: []string{"  INITIAL 1", "  INCREMENT 5"}},
			{Name: "s2", Increment: 1}},
		Security: openedge.Security{Users: []openedge.User{{ID: "ana", Password: "h", Name: "Ana"}},
			Grants: []openedge.Grant{{Grantee: "ana", Object: "PUB.table_1", Privileges: "SELECT"}},
			Views:  []openedge.View{{Owner: "PUB", Name: "v", Text: "SELECT 1"}}}}
	for i := range tables {
		t := &Table{Number: i + 1, Owner: "PUB", Name: fmt.Sprintf("table_%d", i), Area: 7, CRC: uint32(i * 7919),
			Options: []string{`  AREA "Data"`, "  LABEL \"Per\xa1odo\"", "  VALEXP \"a > 0\nAND b\""}}
		for j := range 20 {
			t.Fields = append(t.Fields, Field{Name: fmt.Sprintf("field_%d", j), Type: "character", Order: (j + 1) * 10, Extent: j % 3,
				Options: everyOther(j, `  FORMAT "x(8)"`)})
		}
		for j := range 4 {
			t.Indexes = append(t.Indexes, &Index{Number: i*4 + j + 8, Name: fmt.Sprintf("ix_%d", j), Area: 7, Unique: j == 0,
				Primary: j == 0, Word: j == 3, Active: j != 2, Fields: []IndexField{{Name: "field_1", Pos: 1, Descending: j == 1, Abbreviated: j == 2}},
				Options: everyOther(j, `  DESCRIPTION "d"`)})
		}
		c.Tables = append(c.Tables, t)
	}
	return c
}

// everyOther gives odd objects an option line and even ones none (nil, as
// the decoder reads none).
func everyOther(j int, line string) []string {
	if j%2 == 0 {
		return nil
	}
	return []string{line}
}

func TestControlCodecRoundTrip(t *testing.T) {
	c := sampleControl(30)
	got, err := decodeControlData(encodeControl(c))
	require.NoError(t, err)
	assert.Equal(t, c, got)
}

func TestControlCodecRejectsDamage(t *testing.T) {
	b := encodeControl(sampleControl(3))
	for _, cut := range []int{1, len(b) / 2, len(b) - 1} {
		_, err := decodeControlData(b[:cut])
		assert.Error(t, err, "cut at %d", cut)
	}
	_, err := decodeControlData(append(bytes.Clone(b), 0))
	assert.Error(t, err, "trailing bytes")
}

func FuzzControlCodec(f *testing.F) {
	f.Add(encodeControl(sampleControl(2)))
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := decodeControlData(b)
		if err != nil {
			return
		}
		again, err := decodeControlData(encodeControl(c))
		require.NoError(t, err)
		c.Format = ControlVersion // an older layout is written back as the current one
		assert.Equal(t, c, again)
	})
}

// BenchmarkControlCodec compares the codec with encoding/gob (what DB.db
// used before) on an erp-sized schema: the decode runs at every utility
// start and the encode at every schema change.
func BenchmarkControlCodec(b *testing.B) {
	c := sampleControl(470)
	raw := encodeControl(c)
	var gb bytes.Buffer
	require.NoError(b, gob.NewEncoder(&gb).Encode(c))
	b.Run("decode/codec", func(b *testing.B) {
		b.SetBytes(int64(len(raw)))
		for range b.N {
			if _, err := decodeControlData(raw); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decode/gob-baseline", func(b *testing.B) {
		b.SetBytes(int64(gb.Len()))
		for range b.N {
			var x Control
			if err := gob.NewDecoder(bytes.NewReader(gb.Bytes())).Decode(&x); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encode/codec", func(b *testing.B) {
		for range b.N {
			encodeControl(c)
		}
	})
	b.Run("encode/gob-baseline", func(b *testing.B) {
		for range b.N {
			var buf bytes.Buffer
			if err := gob.NewEncoder(&buf).Encode(c); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// A DB.db written before the security section was kept ends after the
// sequences: it reads as a database without users, grants or views.
func TestControlCodecWithoutSecuritySection(t *testing.T) {
	c := sampleControl(2)
	c.Security = openedge.Security{}
	b := encodeControl(c)
	old := b[:len(b)-5] // the three zero counts of an empty section, then AI and replication
	got, err := decodeControlData(old)
	require.NoError(t, err)
	assert.Equal(t, c, got)
	_, err = decodeControlData(b[:len(b)-4])
	assert.Error(t, err, "a section cut short is not taken for a missing one")
}

// A DB.db written before AI and replication were kept reads with both off;
// a database with both keeps them.
func TestControlCodecAIAndReplication(t *testing.T) {
	c := sampleControl(2)
	b := encodeControl(c)
	got, err := decodeControlData(b[:len(b)-2])
	require.NoError(t, err)
	assert.Equal(t, c, got)
	c.AIBegun, c.Replication = true, true
	got, err = decodeControlData(encodeControl(c))
	require.NoError(t, err)
	assert.True(t, got.AIBegun)
	assert.True(t, got.Replication)
	_, err = decodeControlData(encodeControl(c)[:len(b)-1])
	assert.Error(t, err, "replication cut off is not taken for off")
}
