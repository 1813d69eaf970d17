package run

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/oedl/oedl/internal/openedge"
)

// safeName turns a job ID ("load:PUB.odd \"name\" $(x)") into a file name:
// anything but ASCII letters, digits, '.', '-' and '_' becomes '_', and a
// short hash of the original keeps two names that sanitise alike apart.
// The hash is added only when something was replaced, so ordinary names
// stay readable (logs/dump_PUB.customer.log).
func safeName(id string) string {
	var b strings.Builder
	changed := false
	for _, r := range id {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
			changed = r != ':' || changed
		}
	}
	s := b.String()
	if strings.HasPrefix(s, ".") {
		s = "_" + s[1:]
		changed = true
	}
	if len(s) > 120 {
		s = s[:120]
		changed = true
	}
	if changed {
		sum := sha256.Sum256([]byte(id))
		s += "-" + hex.EncodeToString(sum[:4])
	}
	return s
}

// dumpBase is the name proutil gives a table's dump file, without ".bd":
// the table name for PUB tables, owner_table otherwise (the table name,
// not its DUMP-NAME).
func dumpBase(table string) string {
	owner, name, ok := strings.Cut(table, ".")
	if !ok {
		return openedge.DumpFileBase("", table)
	}
	return openedge.DumpFileBase(owner, name)
}

// sectionFile is the file of one .bd section: table.bd for 1, table.bdN
// for N.
func sectionFile(dir, table string, section int) string {
	base := dumpBase(table) + ".bd"
	if section > 1 {
		base += fmt.Sprint(section)
	}
	return filepath.Join(dir, base)
}

// sections lists the finished .bd files of a table in dir, by section
// number. Files with other names, including the temporary
// table.bN.bd a threaded dump writes before renaming to table.bdN, are not
// sections.
func sections(dir, table string) (map[int]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		if !e.IsDir() {
			names = append(names, e.Name())
		}
	}
	return sectionsOf(dir, table, names), nil
}

// sectionsOf picks the sections of table among the file names of dir.
func sectionsOf(dir, table string, names []string) map[int]string {
	base := dumpBase(table) + ".bd"
	out := map[int]string{}
	for _, name := range names {
		if !strings.HasPrefix(name, base) {
			continue
		}
		rest := name[len(base):]
		n := 1
		if rest != "" {
			if _, err := fmt.Sscanf(rest, "%d", &n); err != nil || fmt.Sprint(n) != rest || n < 2 {
				continue
			}
		}
		out[n] = filepath.Join(dir, name)
	}
	return out
}
