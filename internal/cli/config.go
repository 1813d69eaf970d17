package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"
)

// A site sets some flags on every run: where OpenEdge is, the data
// directories, how many jobs the machine takes. They go in a YAML file:
//
//	# oedl: flags this site always sets; the command line wins over them
//	dlc: /usr/dlc                 # any flag, for every command that has it
//	plan:                         # a command's own flags
//	  data-dir: [/data1, /data2]
//	  bi-dir: /bi
//	run:
//	  dump-jobs: 8
//	  load-jobs: 4
//	  job-timeout: 30m
//
// Keys are the flags' long names. The files read, each over the one
// before: /etc/oedl/config.yaml, $XDG_CONFIG_HOME/oedl/config.yaml
// (~/.config/oedl/config.yaml), ./.oedl.yaml; or only $OEDL_CONFIG when it
// is set. Precedence: a flag on the command line, then the environment
// ($DLC for --dlc), then the files, then the flag's default. An unknown
// key is bad input (exit 2), named with its file: a misspelt "dump_jobs"
// must not be silently ignored on the night of the outage.

// configEnv are the flags the environment also sets; the environment wins
// over a config file.
var configEnv = map[string]string{"dlc": "DLC"}

// configFiles are the files read, lowest precedence first, and whether a
// missing one is an error ($OEDL_CONFIG must exist).
func configFiles(getenv func(string) string) ([]string, bool) {
	if p := getenv("OEDL_CONFIG"); p != "" {
		return []string{p}, true
	}
	xdg := getenv("XDG_CONFIG_HOME")
	if xdg == "" {
		if home := getenv("HOME"); home != "" {
			xdg = filepath.Join(home, ".config")
		}
	}
	files := []string{"/etc/oedl/config.yaml"}
	if xdg != "" {
		files = append(files, filepath.Join(xdg, "oedl", "config.yaml"))
	}
	return append(files, ".oedl.yaml"), false
}

// applyConfig sets cmd's flags that the command line left alone from the
// config files.
func applyConfig(cmd *cobra.Command, getenv func(string) string) error {
	files, must := configFiles(getenv)
	values := map[string]configValue{} // flag -> value, the later file winning
	for _, path := range files {
		if err := readConfig(path, cmd, values); err != nil {
			if errors.Is(err, fs.ErrNotExist) && !must {
				continue
			}
			return UsageError("config %v", err)
		}
	}
	names := make([]string, 0, len(values))
	for n := range values {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		f := cmd.Flags().Lookup(name)
		if f == nil || f.Changed {
			continue // not this command's, or given on the command line
		}
		if env, ok := configEnv[name]; ok && getenv(env) != "" {
			continue // the environment wins over a file
		}
		v := values[name]
		for _, s := range v.items {
			if err := f.Value.Set(s); err != nil {
				return UsageError("config %s: %s: %v", v.file, name, err)
			}
		}
	}
	return nil
}

type configValue struct {
	file  string
	items []string // one for a scalar, each element for a list
}

// readConfig adds the values of one file for cmd to values, checking
// every key against the flags of the command it is for.
func readConfig(path string, cmd *cobra.Command, values map[string]configValue) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var doc map[string]yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	root := cmd.Root()
	keys := make([]string, 0, len(doc))
	for k := range doc {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	// Top-level keys first: a command's own section of the same file wins.
	var sections []string
	for _, key := range keys {
		node := doc[key]
		if sub := subcommand(root, key); sub != nil && node.Kind == yaml.MappingNode {
			sections = append(sections, key)
			continue
		}
		if !anyCommandHas(root, key) {
			return fmt.Errorf("%s: line %d: %q is neither a command nor a flag of oedl", path, node.Line, key)
		}
		items, err := configItems(node)
		if err != nil {
			return fmt.Errorf("%s: line %d: %s: %w", path, node.Line, key, err)
		}
		values[key] = configValue{file: path, items: items}
	}
	for _, key := range sections {
		sub := subcommand(root, key)
		var section map[string]yaml.Node
		node := doc[key]
		if err := node.Decode(&section); err != nil {
			return fmt.Errorf("%s: %s: %w", path, key, err)
		}
		for name, n := range section {
			if sub.Flags().Lookup(name) == nil || name == "help" {
				return fmt.Errorf("%s: line %d: %q is not a flag of oedl %s", path, n.Line, name, key)
			}
			items, err := configItems(n)
			if err != nil {
				return fmt.Errorf("%s: line %d: %s.%s: %w", path, n.Line, key, name, err)
			}
			if sub == cmd {
				values[name] = configValue{file: path, items: items}
			}
		}
	}
	return nil
}

// configItems reads a scalar ("8", "30m", "/usr/dlc") or a list of them.
func configItems(n yaml.Node) ([]string, error) {
	switch n.Kind {
	case yaml.ScalarNode:
		return []string{n.Value}, nil
	case yaml.SequenceNode:
		out := make([]string, 0, len(n.Content))
		for _, c := range n.Content {
			if c.Kind != yaml.ScalarNode {
				return nil, errors.New("a list of plain values is expected")
			}
			out = append(out, c.Value)
		}
		return out, nil
	}
	return nil, errors.New("a value or a list of values is expected")
}

func subcommand(root *cobra.Command, name string) *cobra.Command {
	for _, c := range root.Commands() {
		if c.Name() == name {
			return c
		}
	}
	return nil
}

func anyCommandHas(root *cobra.Command, flag string) bool {
	if flag == "help" || flag == "version" {
		return false
	}
	found := false
	for _, c := range root.Commands() {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if f.Name == flag {
				found = true
			}
		})
	}
	return found
}

// configHelp is the line the root command's help adds about the files.
var configHelp = "Flags a site always sets (--dlc, --data-dir, --dump-jobs ...) can live in " +
	strings.Join([]string{"/etc/oedl/config.yaml", "~/.config/oedl/config.yaml", "./.oedl.yaml"}, ", ") +
	" or $OEDL_CONFIG; the command line wins (docs/config.md)."
