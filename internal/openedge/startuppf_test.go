package openedge

import (
	"io/fs"
	"os"
	"path/filepath"
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
		{name: "nested -pf, in order", files: map[string]string{"startup.pf": "-pf site.pf\n-db second\n", "site.pf": "-db first -ld f\n"},
			want: []string{"site.pf:1: -db first", "startup.pf:2: -db second"}},
		{name: "-pf that cannot be read", files: map[string]string{"startup.pf": "-pf gone.pf"}, err: "startup.pf:1: -pf gone.pf"},
		{name: "-pf without its file", files: map[string]string{"startup.pf": "-pf"}, err: "-pf without a file name"},
		{name: "-pf naming itself", files: map[string]string{"startup.pf": "-pf startup.pf"}, err: "nested more than"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, text := range c.files {
				require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
			}
			got, err := PFDatabases(filepath.Join(dir, "startup.pf"), dir, os.ReadFile)
			if c.err != "" {
				assert.ErrorContains(t, err, c.err)
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
		_, _ = PFDatabases("startup.pf", "/", func(p string) ([]byte, error) {
			if p == "startup.pf" {
				return []byte(line), nil
			}
			return nil, fs.ErrNotExist
		})
	})
}
