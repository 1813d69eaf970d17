package sim

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/openedge"
)

// realLogs is the corpus of utility output seen in real installs (the
// top-level testdata/logs, where each was seen: testdata/README.md).
const realLogs = "../../testdata/logs"

// TestOutputMatchesRealLayouts runs the utilities in English and in
// Brazilian Portuguese (PROMSGS) and compares what they print with the
// real output of the corpus: the same message numbers in the same order
// (of first appearance), and the same unnumbered lines where the layout
// has them (procopy's percent lines, prostrct create's listing).
func TestOutputMatchesRealLayouts(t *testing.T) {
	env, db := smallDB(t)
	langs := []struct {
		dir, promsgs string
	}{
		{"en", ""},
		{"pt", filepath.Join(env.dlc, "prolang", "brz", "promsgs.brz")},
	}
	for _, lang := range langs {
		t.Run(lang.dir, func(t *testing.T) {
			var extra []string
			if lang.promsgs != "" {
				extra = []string{"PROMSGS=" + lang.promsgs}
			}
			run := func(utility string, args ...string) string {
				r := env.run(t, extra, "", utility, args...)
				require.Equal(t, 0, r.code, "%s %v:\n%s", utility, args, r.out)
				return r.out
			}
			dir := filepath.Join(env.work, lang.dir)
			require.NoError(t, os.MkdirAll(dir, 0o755))

			st := filepath.Join(dir, "t.st")
			require.NoError(t, os.WriteFile(st, []byte("b "+dir+"/ f 1024\nb "+dir+"/\nd \"Schema Area\":6,64;1 "+dir+"/\nd \"Data\":7,64;8 "+dir+"/ f 2048\nd \"Data\":7,64;8 "+dir+"/\n"), 0o644))
			tgt := filepath.Join(dir, "t")
			listing := run("prostrct", "create", tgt, st, "-blocksize", "8192")
			sameListing(t, listing, realLog(t, lang.dir, "prostrct_create"))

			copied := run("procopy", filepath.Join(env.dlc, "empty8"), tgt)
			sameNumbers(t, copied, realLog(t, lang.dir, "procopy"))
			assert.Equal(t, 10, linesBetween(copied, openedge.MsgCopyStarted, openedge.MsgBlocksCopied), "ten percent lines:\n%s", copied)

			run("_progres", "-b", "-db", tgt, "-p", "prodict/load_df.p", "-param", intoData(t, db+".df", dir))
			bd := dumpOne(t, env, db, "Customer")
			dump := run("proutil", db, "-C", "dump", "Customer", filepath.Join(dir))
			if lang.dir == "pt" {
				sameNumbers(t, dump, realLog(t, lang.dir, "dump"))
			}
			load := run("proutil", tgt, "-i", "-C", "load", bd, "-T", dir) // parameters before -C, as real scripts write them
			sameNumbers(t, load, realLog(t, lang.dir, "load_no_integrity"))
			lr, err := openedge.ParseLoadOutput(load)
			require.NoError(t, err)
			assert.NotEmpty(t, lr.Deactivated, "the indexes to rebuild, listed under the warning")

			idx := run("proutil", tgt, "-C", "idxbuild", "all", "-rusage", "-TB", "64", "-TM", "32", "-T", dir)
			// (8367) marks a long area scan: the test's areas are too small.
			sameNumbers(t, idx, realLog(t, lang.dir, "idxbuild_threaded_rusage"), openedge.MsgIdxbuildScan)
			_, err = openedge.ParseIdxbuildOutput(idx)
			require.NoError(t, err, "the closing line right after (11465):\n%s", idx)

			bi := run("proutil", tgt, "-C", "truncate", "bi", "-bi", "16384")
			sameNumbers(t, bi, realLog(t, lang.dir, "truncate_bi"))
		})
	}
}

// realLog is the corpus file of a utility in a language.
func realLog(t *testing.T, lang, prefix string) string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(realLogs, lang, prefix+"_*.out"))
	require.NoError(t, err)
	require.NotEmpty(t, files, "no %s/%s_*.out in the corpus", lang, prefix)
	b, err := os.ReadFile(files[0])
	require.NoError(t, err)
	return string(b)
}

// sameNumbers compares the message numbers of two outputs in order of
// first appearance, leaving out the optional ones.
func sameNumbers(t *testing.T, got, real string, optional ...int) {
	t.Helper()
	seq := func(out string) []int {
		var nums []int
		for _, m := range openedge.ScanMessages(out) {
			if !slices.Contains(nums, m.Num) && !slices.Contains(optional, m.Num) {
				nums = append(nums, m.Num)
			}
		}
		return nums
	}
	assert.Equal(t, seq(real), seq(got), "message numbers, oesim's output:\n%s", got)
}

// linesBetween counts the lines after message from and before message to.
func linesBetween(out string, from, to int) int {
	n, in := 0, false
	for _, l := range strings.Split(out, "\n") {
		m, ok := openedge.LineMessage(l)
		switch {
		case ok && m.Num == from:
			in = true
		case ok && m.Num == to:
			return n
		case in:
			n++
		}
	}
	return -1
}

var listingRow = regexp.MustCompile(`^ *\d+ +.+ \S+ \d\d:\d\d:\d\d$`)

// sameListing compares prostrct create's listing: the same two heading
// lines, then one row per extent (size, area, path, time).
func sameListing(t *testing.T, got, real string) {
	t.Helper()
	g, r := strings.Split(strings.TrimRight(got, "\n"), "\n"), strings.Split(strings.TrimRight(real, "\n"), "\n")
	require.GreaterOrEqual(t, len(g), 3, got)
	assert.Equal(t, r[:2], g[:2], "the heading lines")
	for _, l := range g[2:] {
		assert.Regexp(t, listingRow, l)
	}
	for _, l := range r[2:] {
		assert.Regexp(t, listingRow, l, "the corpus row")
	}
}

// intoData writes a copy of a .df with every table and index in area
// "Data" and returns its path.
func intoData(t *testing.T, path, dir string) string {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	df, err := openedge.ParseDF(f, path)
	f.Close()
	require.NoError(t, err)
	for _, tb := range df.Tables() {
		require.NoError(t, df.SetTableArea(tb.Name, "Data"))
		for _, ix := range tb.Indexes {
			require.NoError(t, df.SetIndexArea(tb.Name, ix.Name, "Data"))
		}
	}
	out := filepath.Join(dir, "data.df")
	w, err := os.Create(out)
	require.NoError(t, err)
	_, err = df.WriteTo(w)
	require.NoError(t, err)
	require.NoError(t, w.Close())
	return out
}
