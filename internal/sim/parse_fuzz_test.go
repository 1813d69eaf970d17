package sim

import (
	"strings"
	"testing"
)

// FuzzParseFlags: any command line parses or fails cleanly, and every
// word lands in exactly one place.
func FuzzParseFlags(f *testing.F) {
	f.Add("customer /dump -index 12 -thread 1 -threadnum 4 -dumplist /x")
	f.Add("-TB 64 -TM 32 all -rusage -z -1")
	f.Add("-index")
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Fields(line)
		fs, err := parseFlags(args, "-index", "-thread", "-threadnum", "-dumplist", "-TB", "-TM")
		if err != nil {
			return
		}
		n := len(fs.pos) + len(fs.bools)
		for range fs.values {
			n += 2
		}
		// Repeated switches or values collapse, so at most len(args).
		if n > len(args) {
			t.Fatalf("%q: %d words out of %d", line, n, len(args))
		}
	})
}

// FuzzParseCond: dumpspecified's "OP value" for every field type.
func FuzzParseCond(f *testing.F) {
	for _, s := range []string{"GT 10", "le 03-13-2015", "EQ yes", "ge 2.5", "lt abc"} {
		f.Add(s, "integer")
		f.Add(s, "date")
		f.Add(s, "character")
	}
	f.Fuzz(func(t *testing.T, s, typ string) {
		op, val, _ := strings.Cut(s, " ")
		c, err := parseCond(op, val, typ)
		if err != nil {
			return
		}
		c.match(c.val) // a value compares with itself without panicking
	})
}
