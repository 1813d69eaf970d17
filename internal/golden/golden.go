// Package golden compares test output with files under testdata and
// rewrites them when the test binary runs with -update. Every package's
// golden tests go through it, so -update means the same thing everywhere and
// is registered once per test binary (teatest's golden package registers the
// same flag name; whichever initialises first owns it, and both read it).
package golden

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite the golden files under testdata/")
	}
}

// Update reports whether the test binary runs with -update.
func Update() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// Assert compares got with the file at path (relative to the package
// directory, usually under testdata/), or writes it there under -update. A
// difference names the first line that differs rather than printing both
// files whole.
func Assert(t testing.TB, path string, got []byte) {
	t.Helper()
	path = filepath.FromSlash(path)
	if Update() {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v: missing golden file; run go test -update once and review the diff", err)
	}
	if line, w, g, ok := firstDiff(string(want), string(got)); !ok {
		t.Errorf("%s differs from line %d (go test -update rewrites it):\nwant: %q\n got: %q", path, line, w, g)
	}
}

// firstDiff returns the first differing line (1-based) of want and got,
// and ok when they are equal.
func firstDiff(want, got string) (line int, w, g string, ok bool) {
	if want == got {
		return 0, "", "", true
	}
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(wl), len(gl)) {
		w, g = "", ""
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return i + 1, w, g, false
		}
	}
	return len(wl), "", "", false // unreachable: equal lines mean equal strings
}
