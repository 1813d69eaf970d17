package gen

import (
	"slices"
	"testing"
)

// FuzzGenerate drives the generator with arbitrary small scales and seeds:
// every table must yield exactly Records rows with
// unique primary keys, whatever the rounding of a tiny scale does to the
// record counts and key radices.
func FuzzGenerate(f *testing.F) {
	f.Add("erp", uint32(0), int64(0))
	f.Add("erp", uint32(70_000), int64(-5))
	f.Add("sports", uint32(1), int64(42))
	f.Add("sports", uint32(400_000), int64(1<<40))
	f.Fuzz(func(t *testing.T, profile string, scale uint32, seed int64) {
		if !slices.Contains(Profiles(), profile) {
			return
		}
		db, err := Generate(profile, int64(scale%(512<<10)), seed)
		if err != nil {
			t.Fatal(err)
		}
		for _, tb := range db.Tables {
			keys := primaryKeys(tb)
			if int64(len(keys)) != tb.Records {
				t.Fatalf("%s: %d rows, Records says %d", tb.Name, len(keys), tb.Records)
			}
			slices.Sort(keys)
			for i := 1; i < len(keys); i++ {
				if keys[i] == keys[i-1] {
					t.Fatalf("%s: duplicate primary key %q", tb.Name, keys[i])
				}
			}
		}
	})
}
