package msg

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// realPortuguese is the corpus of real Brazilian output (the top-level
// testdata/logs/pt: dump-load-py's logs, testdata/README.md).
const realPortuguese = "../../../testdata/logs/pt"

// TestPortugueseMatchesRealText: every numbered line of the real
// Portuguese output whose number oesim prints is oesim's Portuguese format
// with its verbs filled, word for word; the real text wins over oesim's
// (docs/decisions.md "(real-lang)"). A message of two lines (6203, 6204,
// 17816) is its two lines. Latin-1 files are read as Latin-1.
func TestPortugueseMatchesRealText(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(realPortuguese, "*.out"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	byNum := map[int]*Entry{}
	for i := range Catalog {
		if e := &Catalog[i]; e.Num > 0 {
			byNum[e.Num] = e
		}
	}
	checked := map[int]bool{}
	for _, f := range files {
		lines := strings.Split(strings.ReplaceAll(readText(t, f), "\r\n", "\n"), "\n")
		for i, line := range lines {
			num, text, ok := numbered(line)
			e := byNum[num]
			if !ok || e == nil {
				continue
			}
			format := e.format(Portuguese)
			if n := strings.Count(format, "\n"); n > 0 && i >= n {
				text = strings.Join(lines[i-n:i], "\n") + "\n" + text
			}
			checked[num] = true
			assert.Regexp(t, formatPattern(format), text, "%s:%d: (%d) is not oesim's Portuguese %q", filepath.Base(f), i+1, num, format)
		}
	}
	// The corpus holds the load, dump, procopy, idxbuild and truncate bi
	// lines: a check that read none of them checked nothing.
	for _, num := range []int{15167, 6256, 13932, 6254, 6715, 6720, 1365, 11465, 8830, 1620, 3781} {
		assert.True(t, checked[num], "(%d) not in the real Portuguese corpus", num)
	}
}

// readText is a file's text, decoded from Latin-1 when it is not UTF-8.
func readText(t *testing.T, path string) string {
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	if utf8.Valid(b) {
		return string(b)
	}
	r := make([]rune, len(b))
	for i, c := range b {
		r[i] = rune(c)
	}
	return string(r)
}

// numbered splits "text (NNNN)" into its number and text.
func numbered(line string) (int, string, bool) {
	m := regexp.MustCompile(`^(.*?)\s*\(([1-9][0-9]*)\)\s*$`).FindStringSubmatch(line)
	if m == nil {
		return 0, "", false
	}
	n, err := strconv.Atoi(m[2])
	return n, m[1], err == nil
}

// formatPattern matches what a fmt format prints: its words as they are,
// each verb any text.
func formatPattern(format string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString(`^`)
	for i, part := range regexp.MustCompile(`%[-+# 0-9.]*[a-z]`).Split(format, -1) {
		if i > 0 {
			b.WriteString(`.*?`)
		}
		b.WriteString(regexp.QuoteMeta(part))
	}
	b.WriteString(`$`)
	return regexp.MustCompile(b.String())
}
