// Package msg is oesim's message catalog: every line a simulated utility
// prints from its message file. catalog.go holds the keys, numbers and the
// English texts (what docs/oesim.md is checked against); each translation
// is one table of its own, key to format (portuguese.go, german.go).
//
// OpenEdge prints its messages from the file named by the PROMSGS
// environment variable, $DLC/promsgs when it is not set; the translated
// files are $DLC/prolang/<language>/promsgs.<language> (brz: Brazilian
// Portuguese, ger: German). The message numbers are the same in every
// language, which is why oedl reads numbers and never words. oesim does
// the same: Install writes $DLC/promsgs (English) and one file per
// prolang directory of Files from the catalog, and a utility prints from
// the file PROMSGS names. The files are oesim's own text format (the real
// ones are binary): a header line, then one "key<TAB>format" line per
// message.
package msg

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Lang is a language of the catalog.
type Lang int

const (
	English Lang = iota
	Portuguese
	German
)

// language is what a Lang stands for: the code its message file's header
// names and its translation's table (nil for English, the catalog's own).
type language struct {
	code  string
	table map[string]string
}

// langs are the languages, by Lang.
var langs = []language{
	English:    {"en", nil},
	Portuguese: {"pt", portuguese},
	German:     {"de", german},
}

// Langs are every language of the catalog.
func Langs() []Lang {
	ls := make([]Lang, len(langs))
	for i := range langs {
		ls[i] = Lang(i)
	}
	return ls
}

func (l Lang) code() string { return langs[l].code }

// Entry is one message: a line a utility prints; its translations are in
// the language tables, under Key.
type Entry struct {
	// Key is the message number ("11465") or, for a line that has none, a
	// name ("idxbuild.done"); oesim's own messages start with "oesim.".
	Key string
	// Num is the OpenEdge message number printed at the end of the line
	// as " (NNNN)"; 0 for a line without one.
	Num int
	// EN is a fmt format; every translation has the same verbs in the
	// same order. A "\n" splits a message printed on two lines (6203,
	// 6204, 17816), the number going after the last one.
	EN string
	// Seen says how sure the English and Portuguese texts are
	// (docs/oesim.md): "both" (both texts seen in real output), "real"
	// (the English seen, the Portuguese oesim's), "real-pt" (the
	// Portuguese seen, the English its translation), "doc" (documentation
	// or the Data Dictionary's source), "inf" (inferred), "mem"
	// (remembered, not found), "number" (the number seen, the text
	// oesim's), "oesim" (oesim's own words, printed with "(oesim)"
	// instead of a number). The German texts are all oesim's translation:
	// no real German utility output was found (docs/oesim.md).
	Seen string
}

// invented says whether the message is oesim's own.
func (e *Entry) invented() bool { return e.Seen == "oesim" }

// suffix is what follows the text: " (NNNN)", " (oesim)" or nothing.
func (e *Entry) suffix() string {
	switch {
	case e.Num > 0:
		return " (" + strconv.Itoa(e.Num) + ")"
	case e.invented():
		return " (oesim)"
	}
	return ""
}

// Lookup returns the catalog entry of key.
func Lookup(key string) (*Entry, bool) {
	e, ok := byKey[key]
	return e, ok
}

var byKey = func() map[string]*Entry {
	m := make(map[string]*Entry, len(Catalog))
	for i := range Catalog {
		e := &Catalog[i]
		if _, dup := m[e.Key]; dup {
			panic("msg: duplicate key " + e.Key)
		}
		m[e.Key] = e
	}
	return m
}()

// Texts are the formats of one message file, by key.
type Texts struct {
	Lang    Lang
	formats map[string]string
}

// Builtin returns the catalog's own texts in one language.
func Builtin(l Lang) *Texts {
	t := &Texts{Lang: l, formats: make(map[string]string, len(Catalog))}
	for _, e := range Catalog {
		t.formats[e.Key] = e.format(l)
	}
	return t
}

// format is the message's format in language l: its translation, the
// English when the language's table lacks it.
func (e *Entry) format(l Lang) string {
	if f, ok := langs[l].table[e.Key]; ok {
		return f
	}
	return e.EN
}

// Sprintf prints message key with args: its format from this message file
// (the English of the catalog when the file lacks it), then the number.
// An unknown key is a bug of oesim and panics.
func (t *Texts) Sprintf(key string, args ...any) string {
	e, ok := byKey[key]
	if !ok {
		panic("msg: unknown key " + key)
	}
	f, ok := t.formats[key]
	if !ok {
		f = e.EN
	}
	return fmt.Sprintf(f, args...) + e.suffix()
}

// fileHeader starts every message file oesim writes.
const fileHeader = "OESIM-PROMSGS 1 "

// Write writes the message file of a language.
func Write(w io.Writer, l Lang) error { return write(w, Builtin(l)) }

// write writes texts: the catalog's keys in catalog order, then any other
// key in key order. A format's backslashes and line ends are escaped.
func write(w io.Writer, t *Texts) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%s%s\n", fileHeader, t.Lang.code())
	keys := make([]string, 0, len(t.formats))
	for k := range t.formats {
		if _, ok := byKey[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, e := range Catalog {
		if f, ok := t.formats[e.Key]; ok {
			fmt.Fprintf(bw, "%s\t%s\n", e.Key, escaper.Replace(f))
		}
	}
	for _, k := range keys {
		fmt.Fprintf(bw, "%s\t%s\n", k, escaper.Replace(t.formats[k]))
	}
	return bw.Flush()
}

var (
	escaper   = strings.NewReplacer(`\`, `\\`, "\n", `\n`, "\r", `\r`)
	unescaper = strings.NewReplacer(`\\`, `\`, `\n`, "\n", `\r`, "\r")
)

// Read reads a message file written by Write.
func Read(r io.Reader, name string) (*Texts, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	if !sc.Scan() || !strings.HasPrefix(sc.Text(), fileHeader) {
		return nil, fmt.Errorf("%s: not an oesim message file (no %q header)", name, strings.TrimSpace(fileHeader))
	}
	t := &Texts{formats: map[string]string{}}
	code := strings.TrimPrefix(sc.Text(), fileHeader)
	l := slices.IndexFunc(langs, func(x language) bool { return x.code == code })
	if l < 0 {
		return nil, fmt.Errorf("%s: unknown language %q", name, code)
	}
	t.Lang = Lang(l)
	for n := 2; sc.Scan(); n++ {
		key, f, ok := strings.Cut(sc.Text(), "\t")
		if !ok {
			return nil, fmt.Errorf("%s:%d: want key<TAB>format", name, n)
		}
		t.formats[key] = unescaper.Replace(f)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return t, nil
}

// Files are the message files Install writes under $DLC, by language.
var Files = []struct {
	Path string // relative to $DLC
	Lang Lang
}{
	{"promsgs", English},
	{filepath.Join("prolang", "ame", "promsgs.ame"), English},
	{filepath.Join("prolang", "brz", "promsgs.brz"), Portuguese},
	{filepath.Join("prolang", "por", "promsgs.por"), Portuguese},
	{filepath.Join("prolang", "ger", "promsgs.ger"), German},
}

// Install writes every message file under dlc.
func Install(dlc string) error {
	for _, f := range Files {
		path := filepath.Join(dlc, f.Path)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return err
		}
		var b bytes.Buffer
		if err := Write(&b, f.Lang); err != nil {
			return err
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// ErrNoFile is returned by Open when the message file named by PROMSGS
// cannot be read.
var ErrNoFile = errors.New("the message file cannot be read")

// Open returns the texts a utility prints with, as OpenEdge chooses its
// message file: the file PROMSGS names, else $DLC/promsgs. Without
// PROMSGS, a DLC that has no promsgs (an install from before the
// catalog) gives the built-in English.
func Open(promsgs, dlc string) (*Texts, error) {
	path := promsgs
	if path == "" {
		path = filepath.Join(dlc, "promsgs")
	}
	f, err := os.Open(path)
	if err != nil {
		if promsgs == "" && errors.Is(err, os.ErrNotExist) {
			return Builtin(English), nil
		}
		return nil, fmt.Errorf("%w: %s: %v", ErrNoFile, path, err)
	}
	defer f.Close()
	return Read(f, path)
}

// Error is an error that a utility prints as a catalog message, in the
// language of its message file. Error() is its English text, for logs
// and tests.
type Error struct {
	Key  string
	Args []any
}

// E builds an *Error.
func E(key string, args ...any) *Error {
	if _, ok := byKey[key]; !ok {
		panic("msg: unknown key " + key)
	}
	return &Error{Key: key, Args: args}
}

func (e *Error) Error() string { return english.Sprintf(e.Key, e.Args...) }

// Keyed is an error of another package that prints as a catalog message
// (oesim's store errors: a database in use, a file not found, a full area).
type Keyed interface {
	error
	Message() *Error
}

var english = Builtin(English)
