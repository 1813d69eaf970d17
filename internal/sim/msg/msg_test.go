package msg

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var verb = regexp.MustCompile(`%[-+# 0-9.]*[a-zA-Z%]`)

// Every message has a text in every language, with the same verbs in the
// same order and on as many lines (a translation that swapped or dropped
// one would print garbage), and a numbered message's key is its number.
func TestCatalogEntries(t *testing.T) {
	seen := map[string]bool{"both": true, "real": true, "real-pt": true, "doc": true, "inf": true, "mem": true, "number": true, "oesim": true}
	for _, e := range Catalog {
		t.Run(e.Key, func(t *testing.T) {
			require.NotEmpty(t, e.EN)
			for _, l := range Langs()[1:] {
				f, ok := langs[l].table[e.Key]
				require.True(t, ok, "no %s text", l.code())
				require.NotEmpty(t, f, l.code())
				assert.Equal(t, verb.FindAllString(e.EN, -1), verb.FindAllString(f, -1), "verbs of en and %s", l.code())
				assert.Equal(t, strings.Count(e.EN, "\n"), strings.Count(f, "\n"), "%s: same number of lines", l.code())
			}
			assert.True(t, seen[e.Seen], "Seen %q", e.Seen)
			if e.Num > 0 {
				assert.Equal(t, strconv.Itoa(e.Num), e.Key)
				assert.NotEqual(t, "oesim", e.Seen)
			} else {
				assert.Equal(t, e.Seen == "oesim", strings.HasPrefix(e.Key, "oesim."), "oesim's own messages are the oesim.* keys")
			}
		})
	}
}

// A translation's table holds only the catalog's keys: a key the catalog
// lost would be a text no utility prints.
func TestTranslationsHoldCatalogKeysOnly(t *testing.T) {
	for _, l := range Langs()[1:] {
		for k := range langs[l].table {
			_, ok := byKey[k]
			assert.True(t, ok, "%s: %q is no catalog key", l.code(), k)
		}
	}
}

func TestSprintf(t *testing.T) {
	pt := Builtin(Portuguese)
	assert.Equal(t, "556 índices foram reconstruídos. (11465)", pt.Sprintf("11465", 556))
	assert.Equal(t, "556 indexes were rebuilt. (11465)", Builtin(English).Sprintf("11465", 556))
	assert.Equal(t, "Carregados 203 registros. (15167)", pt.Sprintf("15167", 203))
	assert.Equal(t, "Thread 7 dumped\n12 records for bracket 2. (17816)", Builtin(English).Sprintf("17816", 7, 12, 2))
	assert.Equal(t, "Sorting index group 3", pt.Sprintf("idxbuild.sort", 3), "no number: nothing appended")
	assert.Equal(t, "** A tabela x não foi encontrada no banco. (oesim)", pt.Sprintf("oesim.table.notfound", "x"))
	assert.Panics(t, func() { pt.Sprintf("no.such.key") })
	assert.Equal(t, "** Table t was not found in the database. (oesim)", E("oesim.table.notfound", "t").Error())
	de := Builtin(German)
	assert.Equal(t, "556 Indizes wurden neu aufgebaut. (11465)", de.Sprintf("11465", 556))
	assert.Equal(t, "Thread 7 hat entladen:\n12 Datensätze für Intervall 2. (17816)", de.Sprintf("17816", 7, 12, 2))
}

func TestFilesRoundTrip(t *testing.T) {
	for _, l := range Langs() {
		var b bytes.Buffer
		require.NoError(t, Write(&b, l))
		got, err := Read(&b, "promsgs")
		require.NoError(t, err)
		assert.Equal(t, Builtin(l), got)
	}
	_, err := Read(strings.NewReader("PROMSGS binary\n"), "x")
	assert.ErrorContains(t, err, "not an oesim message file")
	_, err = Read(strings.NewReader("OESIM-PROMSGS 1 en\nno tab here\n"), "x")
	assert.ErrorContains(t, err, "x:2: want key<TAB>format")
}

// Open chooses the file as OpenEdge does: PROMSGS, else $DLC/promsgs.
func TestOpen(t *testing.T) {
	dlc := t.TempDir()
	require.NoError(t, Install(dlc))
	for _, f := range Files {
		_, err := os.Stat(filepath.Join(dlc, f.Path))
		require.NoError(t, err)
	}
	tx, err := Open("", dlc)
	require.NoError(t, err)
	assert.Equal(t, English, tx.Lang)
	tx, err = Open(filepath.Join(dlc, "prolang", "brz", "promsgs.brz"), dlc)
	require.NoError(t, err)
	assert.Equal(t, Portuguese, tx.Lang)
	assert.Equal(t, "Load binario completo. (6256)", tx.Sprintf("6256"))
	tx, err = Open(filepath.Join(dlc, "prolang", "ger", "promsgs.ger"), dlc)
	require.NoError(t, err)
	assert.Equal(t, German, tx.Lang)
	assert.Equal(t, "Binäres Laden abgeschlossen. (6256)", tx.Sprintf("6256"))

	// A message missing from an older file prints the catalog's English.
	old := filepath.Join(t.TempDir(), "promsgs.old")
	require.NoError(t, os.WriteFile(old, []byte("OESIM-PROMSGS 1 pt\n6256\tLoad binario completo.\n"), 0o644))
	tx, err = Open(old, dlc)
	require.NoError(t, err)
	assert.Equal(t, "Loaded 3 records. (15167)", tx.Sprintf("15167", 3))

	_, err = Open(filepath.Join(dlc, "nope"), dlc)
	assert.ErrorIs(t, err, ErrNoFile)
	tx, err = Open("", t.TempDir())
	require.NoError(t, err, "a DLC without promsgs prints English")
	assert.Equal(t, English, tx.Lang)
}

// FuzzRead: a message file either reads or is refused, and what write
// writes of it reads back to the same texts. (Printing with a read file is
// fmt's business: a mutated "%99999999d" only makes the fuzzer slow.)
func FuzzRead(f *testing.F) {
	// Seeds: the head of each real file (a whole file slows the fuzzer
	// to a crawl).
	for _, l := range Langs() {
		var b bytes.Buffer
		if err := Write(&b, l); err != nil {
			f.Fatal(err)
		}
		lines := strings.SplitAfter(b.String(), "\n")
		f.Add(strings.Join(lines[:min(12, len(lines))], ""))
	}
	f.Add("OESIM-PROMSGS 1 pt\n11465\t%d %s %v\n15167\t\\n\\n%\n")
	f.Fuzz(func(t *testing.T, in string) {
		tx, err := Read(strings.NewReader(in), "fuzz")
		if err != nil {
			require.Nil(t, tx)
			return
		}
		var b bytes.Buffer
		require.NoError(t, write(&b, tx))
		back, err := Read(&b, "rewritten")
		require.NoError(t, err)
		require.Equal(t, tx, back)
	})
}
