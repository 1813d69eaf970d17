package openedge

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStartupPF(t *testing.T) {
	assert.Equal(t, "/etc/my.pf", StartupPF("/etc/my.pf", "/usr/dlc"))
	assert.Equal(t, "/usr/dlc/startup.pf", StartupPF("", "/usr/dlc"))
}

// The layout of the documentation's sample (Startup Command and Parameter
// Reference, "Parameter file format", new_york.pf; and the
// STARTUP-PARAMETERS attribute's startup.pf of "-db sports2000 -H pclsmith
// -S 5000"), rewritten here.
func TestPFDatabases(t *testing.T) {
	for _, c := range []struct {
		name  string
		files map[string]string
		want  []string
		err   string
	}{
		{name: "no startup.pf", files: map[string]string{}},
		{name: "codepage only", files: map[string]string{"startup.pf": "-cpinternal ISO8859-1 -cpstream ISO8859-1 # the site's\n-d dmy -numsep 46\n"}},
		{name: "the documentation's sample", files: map[string]string{"startup.pf": "-db  /usr/disk0/newyork          # new york central db\n\n-B   200  # database buffers\n-H   nysystem -S nyserver\n"},
			want: []string{"startup.pf:1: -db /usr/disk0/newyork"}},
		{name: "one line", files: map[string]string{"startup.pf": "-db sports2000 -H pclsmith -S 5000"},
			want: []string{"startup.pf:1: -db sports2000"}},
		{name: "commented out", files: map[string]string{"startup.pf": "# -db prod\n-T /tmp #-db prod\n"}},
		{name: "quoted path with a space", files: map[string]string{"startup.pf": "-db \"/db/new york/prod\"\r\n"},
			want: []string{"startup.pf:1: -db /db/new york/prod"}},
		{name: "a quoted # is no comment", files: map[string]string{"startup.pf": "-Mm '#' -db prod"},
			want: []string{"startup.pf:1: -db prod"}},
		{name: "tilde", files: map[string]string{"startup.pf": "-db a~ b~043c"},
			want: []string{"startup.pf:1: -db a b#c"}},
		{name: "-db with no name still connects", files: map[string]string{"startup.pf": "-T /tmp -db"},
			want: []string{"startup.pf:1: -db "}},
		{name: "nested -pf, in order", files: map[string]string{"startup.pf": "-pf DIR/site.pf\n-db second\n", "site.pf": "-db first -ld f\n"},
			want: []string{"site.pf:1: -db first", "startup.pf:2: -db second"}},
		{name: "-pf that cannot be read", files: map[string]string{"startup.pf": "-pf DIR/gone.pf"}, err: "startup.pf:1: -pf DIR/gone.pf"},
		{name: "-pf without its file", files: map[string]string{"startup.pf": "-pf"}, err: "-pf without a file name"},
		{name: "-pf naming itself", files: map[string]string{"startup.pf": "-pf DIR/startup.pf"}, err: "nested more than"},
		// A relative -pf is read from each session's current directory,
		// and oedl's utilities run in several: which file it names cannot
		// be told once, even when one exists beside the startup file.
		{name: "relative -pf", files: map[string]string{"startup.pf": "-T /tmp\n-pf site.pf\n", "site.pf": "-db first\n"},
			err: "startup.pf:2: -pf site.pf is a relative name"},
		{name: "relative -pf in a nested file", files: map[string]string{"startup.pf": "-pf DIR/site.pf", "site.pf": "-pf ./more.pf"},
			err: "site.pf:1: -pf ./more.pf is a relative name"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, text := range c.files {
				text = strings.ReplaceAll(text, "DIR", dir)
				require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
			}
			got, err := PFDatabases(filepath.Join(dir, "startup.pf"), os.ReadFile)
			if c.err != "" {
				assert.ErrorContains(t, err, strings.ReplaceAll(c.err, "DIR", dir))
				return
			}
			require.NoError(t, err)
			var s []string
			for _, g := range got {
				r, _ := filepath.Rel(dir, g.File)
				g.File = r
				s = append(s, g.String())
			}
			assert.Equal(t, c.want, s)
		})
	}
}

func FuzzPFTokens(f *testing.F) {
	for _, s := range []string{"-db /usr/disk0/newyork # db", "-db \"a b\" -pf 'x y'", "~043~t~", "'open", "#"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		for _, tok := range pfTokens(line) {
			_ = tok
		}
		// A file of that line never panics, whatever it holds.
		_, _ = PFDatabases("/startup.pf", func(p string) ([]byte, error) {
			if p == "/startup.pf" {
				return []byte(line), nil
			}
			return nil, fs.ErrNotExist
		})
	})
}

// $PROSTARTUP is handed to every utility as oedl checked it: a relative
// name is made absolute before (run.Config, calibrate) from oedl's current
// directory, or, on a host oedl reaches through its connection, refused:
// that host's sessions run in several directories and none is the DBA's.
// NoStartupDatabase itself never reads a relative name, which would be
// read from oedl's own directory and name another file than a utility's.
func TestNoStartupDatabaseRefusesARelativeName(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "harmless.pf"), []byte("-d dmy\n"), 0o644))
	t.Chdir(dir)
	err := NoStartupDatabase("harmless.pf", "/usr/dlc", os.ReadFile)
	assert.ErrorContains(t, err, "$PROSTARTUP harmless.pf is a relative name")
	assert.NoError(t, NoStartupDatabase(filepath.Join(dir, "harmless.pf"), "/usr/dlc", os.ReadFile))
	assert.NoError(t, NoStartupDatabase("", dir, os.ReadFile)) // no startup.pf in that DLC
}
