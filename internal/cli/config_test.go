package cli

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// flagsAfterConfig parses args for `oedl <command>`, applies the config
// files seen through env, and returns the command for reading its flags.
func flagsAfterConfig(t *testing.T, env map[string]string, command string, args ...string) (*commandFlags, error) {
	t.Helper()
	root := NewRootCmd(&IOStreams{})
	cmd := subcommand(root, command)
	require.NotNil(t, cmd)
	require.NoError(t, cmd.ParseFlags(args))
	err := applyConfig(cmd, func(k string) string { return env[k] })
	return &commandFlags{t: t, cmd: cmd.Flags()}, err
}

type commandFlags struct {
	t   *testing.T
	cmd *pflag.FlagSet
}

func (c *commandFlags) str(name string) string {
	f := c.cmd.Lookup(name)
	require.NotNil(c.t, f, name)
	return f.Value.String()
}

func (c *commandFlags) num(name string) int {
	v, err := c.cmd.GetInt(name)
	require.NoError(c.t, err)
	return v
}

func writeFile(t *testing.T, path, text string) string {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	return path
}

// Precedence: the command line, then the environment ($DLC), then the
// files (the user's over /etc's... as found), then the default; a
// command's section over a top-level key.
func TestConfigPrecedence(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	home := filepath.Join(dir, "home")
	writeFile(t, filepath.Join(home, ".config", "oedl", "config.yaml"), `
dlc: /opt/dlc-from-file
load-jobs: 3
run:
  dump-jobs: 8
  load-jobs: 4
  job-timeout: 30m
plan:
  data-dir: [/data1, /data2]
`)
	env := map[string]string{"HOME": home}

	f, err := flagsAfterConfig(t, env, "run")
	require.NoError(t, err)
	assert.Equal(t, 8, f.num("dump-jobs"), "from the file")
	assert.Equal(t, 4, f.num("load-jobs"), "the command's section wins over the top-level key")
	assert.Equal(t, "30m0s", f.str("job-timeout"))
	assert.Equal(t, "/opt/dlc-from-file", f.str("dlc"), "top-level keys apply to every command with the flag")
	assert.Equal(t, 0, f.num("loads-per-area"), "what no file sets keeps its default")

	f, err = flagsAfterConfig(t, env, "run", "--dump-jobs", "2")
	require.NoError(t, err)
	assert.Equal(t, 2, f.num("dump-jobs"), "the command line wins")

	env["DLC"] = "/usr/dlc"
	f, err = flagsAfterConfig(t, env, "run")
	require.NoError(t, err)
	assert.Empty(t, f.str("dlc"), "$DLC wins over the file (the run reads it when --dlc is empty)")
	delete(env, "DLC")

	f, err = flagsAfterConfig(t, env, "plan")
	require.NoError(t, err)
	dirs, err := f.cmd.GetStringArray("data-dir")
	if err != nil {
		dirs, err = f.cmd.GetStringSlice("data-dir")
	}
	require.NoError(t, err)
	assert.Equal(t, []string{"/data1", "/data2"}, dirs, "a list sets a repeated flag")

	// ./.oedl.yaml is read after the user's file and wins over it.
	writeFile(t, filepath.Join(dir, ".oedl.yaml"), "run:\n  dump-jobs: 6\n")
	f, err = flagsAfterConfig(t, env, "run")
	require.NoError(t, err)
	assert.Equal(t, 6, f.num("dump-jobs"))
	assert.Equal(t, 4, f.num("load-jobs"), "the files merge")

	// $OEDL_CONFIG replaces the search.
	only := writeFile(t, filepath.Join(dir, "site.yaml"), "run:\n  load-jobs: 7\n")
	f, err = flagsAfterConfig(t, map[string]string{"HOME": home, "OEDL_CONFIG": only}, "run")
	require.NoError(t, err)
	assert.Equal(t, 7, f.num("load-jobs"))
	assert.Equal(t, 0, f.num("dump-jobs"), "no other file is read")
}

// A key that is no flag is bad input naming the file and the line; so is
// a missing $OEDL_CONFIG and a value the flag refuses.
func TestConfigErrors(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	tests := []struct {
		name, text, want string
	}{
		{"misspelt flag in a section", "run:\n  dump_jobs: 8\n", `line 2: "dump_jobs" is not a flag of oedl run`},
		{"unknown top-level key", "dump_jobs: 8\n", `line 1: "dump_jobs" is neither a command nor a flag of oedl`},
		{"bad value", "run:\n  dump-jobs: eight\n", "dump-jobs"},
		{"not YAML", "run: [\n", "config.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeFile(t, filepath.Join(dir, "config.yaml"), tt.text)
			_, err := flagsAfterConfig(t, map[string]string{"OEDL_CONFIG": path}, "run")
			require.Error(t, err)
			assert.Equal(t, ExitUsage, exitCode(err))
			assert.Contains(t, err.Error(), tt.want)
			assert.Contains(t, err.Error(), path, "the file is named")
		})
	}
	_, err := flagsAfterConfig(t, map[string]string{"OEDL_CONFIG": filepath.Join(dir, "missing.yaml")}, "run")
	require.Error(t, err)
	assert.Equal(t, ExitUsage, exitCode(err))
}
