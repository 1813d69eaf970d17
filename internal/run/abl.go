package run

import (
	"embed"
	"fmt"
	"os"
	"path/filepath"

	"github.com/oedl/oedl/internal/atomicfile"
)

// The ABL procedures oedl ships for sequence values (and, alike, for the
// users, SQL grants and views: dump_security.p, load_security.p). Binary dump/load
// moves records only; sequence current values live in the database's
// sequence block and must be carried over by a client. They are real ABL
// (DYNAMIC-CURRENT-VALUE), so they run on a licensed OpenEdge as they are;
// oesim recognises them by file name.
//
//go:embed abl/*.p
var ablFS embed.FS

const (
	ablDumpSeq = "dump_seqvals.p"
	ablLoadSeq = "load_seqvals.p"
	// The users, SQL grants and views (openedge.Security).
	ablDumpSecurity = "dump_security.p"
	ablLoadSecurity = "load_security.p"
	// The source's last transaction id (fingerprint.go): alone on a
	// source host's, with the source's .df in one session on this
	// machine's (the preflight, checkSourceFree).
	ablDumpLastTask   = "dump_lasttask.p"
	ablDumpLastTaskDF = "dump_lasttask_df.p"
)

// ablProcedures are every procedure oedl ships.
var ablProcedures = []string{ablDumpSeq, ablLoadSeq, ablDumpSecurity, ablLoadSecurity, ablDumpLastTask, ablDumpLastTaskDF}

// writeABL writes the procedures into dir (WORK/abl).
func writeABL(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, name := range ablProcedures {
		data, err := ablSource(name)
		if err != nil {
			return err
		}
		if err := atomicfile.WriteFile(filepath.Join(dir, name), data); err != nil {
			return err
		}
	}
	return nil
}

// ablSource is the text of the embedded procedure name.
func ablSource(name string) ([]byte, error) {
	data, err := ablFS.ReadFile("abl/" + name)
	if err != nil {
		return nil, fmt.Errorf("embedded %s: %w", name, err)
	}
	return data, nil
}
