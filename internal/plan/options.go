package plan

import (
	"fmt"
	"strings"

	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/units"
)

// Options are the choices of `oedl plan` that are not facts about the
// source: the target's block size and machine, the size thresholds and
// where the extents go. Start from DefaultOptions; Make rejects values that
// cannot give a valid structure.
type Options struct {
	// BlockSize of the target database in bytes: 1024, 2048, 4096 or 8192.
	BlockSize int
	// LargeBytes: a table at least this large gets its own data area
	// (BPC 512). TopN, when > 0, also gives the N largest tables their own
	// area whatever their size.
	LargeBytes int64
	TopN       int
	// MediumBytes: tables from here up to LargeBytes share medium pools
	// (BPC 64); smaller ones share small pools (BPC 8).
	MediumBytes int64
	// HeadroomPct is added to the known data size when fixed extents are
	// sized, for growth between the plan and the load.
	HeadroomPct int
	// MaxExtentBytes caps one fixed extent; larger areas get several.
	MaxExtentBytes int64
	// Target is the target database path ("/db/new/prod"). DataDirs
	// default to its directory; "" leaves the extents at "." (the
	// directory prostrct create runs in).
	Target string
	// DataDirs receive the data extents round-robin.
	DataDirs []string
	// BIDir holds the before-image extents (default: the first data dir).
	BIDir string
	// AIDirs, when given, get after-image extents, alternating between
	// them (seed 000 §6.10: never on the data disks).
	AIDirs []string
	// Machine is the target machine the parameters are tuned for.
	Machine Machine
}

// Defaults (see doc.go for why).
const (
	DefaultBlockSize      = 8192
	DefaultLargeBytes     = units.GB
	DefaultMediumBytes    = 100 * units.MB
	DefaultHeadroomPct    = 20
	DefaultMaxExtentBytes = 2 * units.GB
)

// DefaultOptions are the options of a plain `oedl plan` on this machine.
func DefaultOptions() Options {
	return Options{
		BlockSize:      DefaultBlockSize,
		LargeBytes:     DefaultLargeBytes,
		MediumBytes:    DefaultMediumBytes,
		HeadroomPct:    DefaultHeadroomPct,
		MaxExtentBytes: DefaultMaxExtentBytes,
		Machine:        DetectMachine(),
	}
}

// maxExtentKB is the largest extent the plan writes, in KB, a multiple of
// 16 blocks: --max-extent, but below 2 GiB unless --max-extent is above
// 2 GiB (the DBA asks for large files). The default 2GB is a cap a
// database without large files refuses by one unit (2,097,152 KB against
// its 2,097,024 at 8 KB blocks), so it gives the largest size it takes.
func (o Options) maxExtentKB() int64 {
	unit := extentUnitKB(o.BlockSize)
	kb := o.MaxExtentBytes / 1024 / unit * unit
	if o.MaxExtentBytes <= 2*units.GB {
		kb = min(kb, openedge.MaxExtentKBWithoutLargeFiles(o.BlockSize))
	}
	return kb
}

// largestCluster is the biggest Type II cluster: an extent smaller than one
// cluster of a BPC 512 area could not hold a single object.
const largestCluster = 512

// validate reports the first option that cannot give a usable plan. The
// messages name the flag a user would set.
func (o Options) validate() error {
	if !validBlockSize(o.BlockSize) {
		return fmt.Errorf("--block-size %d: must be 1024, 2048, 4096 or 8192", o.BlockSize)
	}
	if o.LargeBytes <= 0 {
		return fmt.Errorf("--large %d: the large-table threshold must be more than 0", o.LargeBytes)
	}
	if o.MediumBytes <= 0 {
		return fmt.Errorf("--medium %d: the medium-table threshold must be more than 0", o.MediumBytes)
	}
	if o.TopN < 0 {
		return fmt.Errorf("--top %d: must not be negative", o.TopN)
	}
	if o.HeadroomPct < 0 || o.HeadroomPct > 1000 {
		return fmt.Errorf("--headroom %d: must be a percentage from 0 to 1000", o.HeadroomPct)
	}
	if min := int64(largestCluster) * int64(o.BlockSize); o.MaxExtentBytes < min {
		return fmt.Errorf("--max-extent %s: smaller than one 512-block cluster (%s at %d-byte blocks)",
			units.FormatIEC(o.MaxExtentBytes), units.FormatIEC(min), o.BlockSize)
	}
	if o.MaxExtentBytes > openedge.MaxExtentKB*1024 {
		return fmt.Errorf("--max-extent %s: more than 1 TB, the largest extent OpenEdge has", units.FormatIEC(o.MaxExtentBytes))
	}
	for i, d := range o.DataDirs {
		if strings.TrimSpace(d) == "" {
			return fmt.Errorf("--data-dir #%d is empty", i+1)
		}
	}
	for i, d := range o.AIDirs {
		if strings.TrimSpace(d) == "" {
			return fmt.Errorf("--ai-dir #%d is empty", i+1)
		}
	}
	if err := checkPaths(o); err != nil {
		return err
	}
	if o.Machine.Cores < 1 {
		return fmt.Errorf("--cores %d: the target machine needs at least one core", o.Machine.Cores)
	}
	if o.Machine.MemoryBytes < 256*units.MB {
		return fmt.Errorf("--memory %s: less than 256M cannot run a database broker and idxbuild",
			units.FormatIEC(o.Machine.MemoryBytes))
	}
	return nil
}

// checkPaths rejects directories a .st line cannot carry (a double quote
// ends the !"..." form and a newline ends the line) and Windows paths: oedl
// runs on Unix only (it does not build for Windows), where `D:\oedata`,
// copied from a Windows .st, is a directory of that name under the one
// prostrct create runs in (nu-trial8).
func checkPaths(o Options) error {
	type named struct{ flag, path string }
	var all []named
	for _, d := range o.DataDirs {
		all = append(all, named{"--data-dir", d})
	}
	for _, d := range o.AIDirs {
		all = append(all, named{"--ai-dir", d})
	}
	all = append(all, named{"--bi-dir", o.BIDir}, named{"--target", o.Target})
	for _, d := range all {
		if strings.ContainsAny(d.path, "\"\n\r") {
			return fmt.Errorf("path %q: a .st file cannot hold a double quote or a line break in a path", d.path)
		}
		if IsWindowsPath(d.path) {
			return fmt.Errorf("%s \"%s\" is a Windows path (a drive letter or a backslash): oedl runs on Unix only; give the Unix directory on the target's machine", d.flag, d.path)
		}
	}
	return nil
}

// IsWindowsPath tells a path written for Windows: a drive letter
// ("D:\db", "e:/bi", also once made absolute: "/home/dba/D:/db") or a
// backslash separator (".\db"). oedl runs on Unix only, where such a path
// names a file under the current directory.
func IsWindowsPath(p string) bool {
	if strings.ContainsRune(p, '\\') {
		return true
	}
	for _, el := range strings.Split(p, "/") {
		if len(el) == 2 && el[1] == ':' && (el[0]|0x20 >= 'a' && el[0]|0x20 <= 'z') {
			return true
		}
	}
	return false
}
