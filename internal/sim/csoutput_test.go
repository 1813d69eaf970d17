package sim

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/openedge"
)

// TestCSOutputFlags: the -csoutput files follow -fieldsep (sp, tab or one
// character) and carry the header row only with -verbose, as the real
// utility writes them; each is read back with the matching format.
func TestCSOutputFlags(t *testing.T) {
	env, db := smallDB(t)
	report := analysis(t, env, db)
	for i, tc := range []struct {
		name   string
		flags  []string
		format openedge.CSFormat
	}{
		{"default", nil, openedge.CSFormat{}},
		{"verbose", []string{"-verbose"}, openedge.CSFormat{Verbose: true}},
		{"fieldsep sp", []string{"-fieldsep", "sp"}, openedge.CSFormat{Sep: ' '}},
		{"fieldsep tab, verbose", []string{"-fieldsep", "tab", "-verbose"}, openedge.CSFormat{Sep: '\t', Verbose: true}},
		{"fieldsep |", []string{"-fieldsep", "|"}, openedge.CSFormat{Sep: '|'}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prefix := filepath.Join(env.work, "cs"+itoa(i))
			args := append([]string{db, "-C", "dbanalys", "-csoutput", "-csfilePrefix", prefix}, tc.flags...)
			env.ok(t, "proutil", args...)
			for _, file := range []struct {
				suffix string
				parse  func(f *os.File) (*openedge.Analysis, error)
			}{
				{".tab.txt", func(f *os.File) (*openedge.Analysis, error) { return tc.format.ParseTab(f, f.Name()) }},
				{".ix.txt", func(f *os.File) (*openedge.Analysis, error) { return tc.format.ParseIndex(f, f.Name()) }},
			} {
				b, err := os.ReadFile(prefix + file.suffix)
				require.NoError(t, err)
				first, _, _ := strings.Cut(string(b), "\n")
				assert.Equal(t, tc.format.Verbose, strings.HasPrefix(first, `"Time Stamp"`), "header row in %s: %q", file.suffix, first)
				sep := " "
				if tc.format.Sep != 0 {
					sep = string(tc.format.Sep)
				}
				assert.Contains(t, first, `"`+sep+`"`, "fields of %s separated by %q: %q", file.suffix, sep, first)
				assert.True(t, file.suffix != ".tab.txt" || openedge.IsCSTab(b),
					"the rows start with a DATETIME-TZ, as the utility writes them, so oedl knows the file by its content: %q", b[:min(len(b), 80)])
				f, err := os.Open(prefix + file.suffix)
				require.NoError(t, err)
				a, err := file.parse(f)
				f.Close()
				require.NoError(t, err)
				if file.suffix == ".tab.txt" {
					a.Tables = slices.DeleteFunc(a.Tables, openedge.TableStat.System)
					assert.Equal(t, counts(report), counts(a))
				} else {
					assert.NotEmpty(t, a.Indexes)
				}
			}
		})
	}
	for _, bad := range []string{"ab", `"`, "\x01"} {
		t.Run("fieldsep "+bad+" refused", func(t *testing.T) {
			r := env.run(t, nil, "", "proutil", db, "-C", "tabanalys", "-csoutput", "-fieldsep", bad)
			assert.Equal(t, exitUsage, r.code, r.out)
			assert.Contains(t, r.out, "-fieldsep")
		})
	}
}
