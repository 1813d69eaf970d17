package openedge

import "strings"

// DumpFileBase is the base name of the .bd files `proutil -C dump` writes
// for a table: the table's name for PUB (or no owner), owner_table
// otherwise; DIR/base.bd, and base.bdN for the sections of a threaded
// dump after the first.
//
// A real table or owner name cannot hold a path separator: names are
// letters, digits and # $ % & - _, beginning with a letter ("Name
// limits", OpenEdge ABL documentation). A name from anywhere else (oesim
// takes wider ones, a damaged schema) must still not make a dump write
// outside its directory: '/' and NUL map to '_', so the base is always one
// file name in DIR (".." + ".bd" is the file "...bd", not a parent).
func DumpFileBase(owner, name string) string {
	base := name
	if owner != "" && !strings.EqualFold(owner, "PUB") {
		base = owner + "_" + name
	}
	return strings.Map(func(r rune) rune {
		if r == '/' || r == 0 {
			return '_'
		}
		return r
	}, base)
}
