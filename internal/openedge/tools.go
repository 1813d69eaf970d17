package openedge

import (
	"fmt"
	"strconv"
	"strings"
)

// Program names under $DLC/bin. The builders below return the arguments
// that follow the program (execx.Cmd.Args); each value is exactly one argv
// element and is never quoted, so a table or area name with spaces, quotes
// or shell characters reaches the utility untouched.
const (
	ToolProutil  = "proutil"
	ToolProstrct = "prostrct"
	ToolProcopy  = "procopy"
	ToolProserve = "proserve"
	ToolProshut  = "proshut"
	ToolProgres  = "_progres"
)

// ProutilArgs is "db -C qualifier args...", the shape of every proutil call.
func ProutilArgs(db, qualifier string, args ...string) []string {
	return append([]string{db, "-C", qualifier}, args...)
}

// DumpOptions are the optional parts of a binary dump.
type DumpOptions struct {
	// Index is the index NUMBER to dump by (from idxanalys or _Index._idx-num);
	// 0 or negative = the primary index, the utility's default. User tables
	// only have positive index numbers.
	Index int
	// Thread asks for a multi-threaded dump (-thread 1; Enterprise licence).
	Thread bool
	// Threadnum caps the number of threads (-threadnum); > 1 implies Thread.
	Threadnum int
	// Dumplist is the file that receives the names of the .bd files written.
	Dumplist string
}

// DumpArgs builds
//
//	proutil db -C dump [owner.]table dir [-index n] [-thread 1 [-threadnum n]] [-dumplist file]
func DumpArgs(db, table, dir string, o DumpOptions) []string {
	args := ProutilArgs(db, "dump", table, dir)
	if o.Index > 0 {
		args = append(args, "-index", strconv.Itoa(o.Index))
	}
	if o.Thread || o.Threadnum > 1 {
		args = append(args, "-thread", "1")
	}
	if o.Threadnum > 0 {
		args = append(args, "-threadnum", strconv.Itoa(o.Threadnum))
	}
	if o.Dumplist != "" {
		args = append(args, "-dumplist", o.Dumplist)
	}
	return args
}

// DumpSpecified is the selection of a dumpspecified: Field Op1 Low
// [AND Op2 High]. Operators are EQ, GT, LT, GE or LE.
type DumpSpecified struct {
	Table, Field string // [owner.]table and field: passed as table.field
	Op1, Low     string
	Op2, High    string // both empty for a single condition
	PreferIndex  string // -preferidx index-name; "" = let the utility choose
}

// DumpSpecifiedArgs builds
//
//	proutil db -C dumpspecified table.field op1 low [AND op2 high] dir [-preferidx index]
func DumpSpecifiedArgs(db, dir string, s DumpSpecified) ([]string, error) {
	if s.Table == "" || s.Field == "" {
		return nil, fmt.Errorf("dumpspecified: table and field are required")
	}
	op1, err := dumpOperator(s.Op1)
	if err != nil {
		return nil, err
	}
	args := ProutilArgs(db, "dumpspecified", s.Table+"."+s.Field, op1, s.Low)
	if s.Op2 != "" || s.High != "" {
		op2, err := dumpOperator(s.Op2)
		if err != nil {
			return nil, err
		}
		args = append(args, "AND", op2, s.High)
	}
	args = append(args, dir)
	if s.PreferIndex != "" {
		args = append(args, "-preferidx", s.PreferIndex)
	}
	return args, nil
}

func dumpOperator(op string) (string, error) {
	switch u := strings.ToUpper(op); u {
	case "EQ", "GT", "LT", "GE", "LE":
		return u, nil
	}
	return "", fmt.Errorf("dumpspecified: operator %q, want EQ, GT, LT, GE or LE", op)
}

// LoadOptions are the optional parts of a binary load.
type LoadOptions struct {
	// BuildIndexes builds the indexes during the load ("build indexes");
	// only valid when the table is empty before the load.
	BuildIndexes bool
	Dumplist     string // -dumplist: load every file the dump listed
	NoIntegrity  bool   // -i: no crash recovery, faster; restore from backup on a crash
	Raw          bool   // -r: buffered (raw) I/O
	TB, TM       int    // sort block size (KB) and merge number for build indexes
	TempDir      string // -T: sort files directory
}

// LoadArgs builds
//
//	proutil db -C load file [build indexes] [-dumplist f] [-TB n] [-TM n] [-T dir] [-i] [-r]
func LoadArgs(db, file string, o LoadOptions) []string {
	args := ProutilArgs(db, "load")
	if file != "" {
		args = append(args, file)
	}
	if o.BuildIndexes {
		args = append(args, "build", "indexes")
	}
	if o.Dumplist != "" {
		args = append(args, "-dumplist", o.Dumplist)
	}
	args = appendIntFlag(args, "-TB", o.TB)
	args = appendIntFlag(args, "-TM", o.TM)
	if o.TempDir != "" {
		args = append(args, "-T", o.TempDir)
	}
	if o.NoIntegrity {
		args = append(args, "-i")
	}
	if o.Raw {
		args = append(args, "-r")
	}
	return args
}

// IdxbuildTarget says which indexes idxbuild rebuilds. All of them, a table,
// an area, or the active/inactive ones; the zero value is "all". Each of
// these runs without the interactive menu.
type IdxbuildTarget struct {
	kind string // all, table, area, activeindexes, inactiveindexes
	name string
}

func IdxbuildAll() IdxbuildTarget           { return IdxbuildTarget{kind: "all"} }
func IdxbuildTable(t string) IdxbuildTarget { return IdxbuildTarget{kind: "table", name: t} }
func IdxbuildArea(a string) IdxbuildTarget  { return IdxbuildTarget{kind: "area", name: a} }
func IdxbuildActive() IdxbuildTarget        { return IdxbuildTarget{kind: "activeindexes"} }
func IdxbuildInactive() IdxbuildTarget      { return IdxbuildTarget{kind: "inactiveindexes"} }
func (t IdxbuildTarget) String() string     { return strings.TrimSpace(strings.Join(t.args(), " ")) }
func (t IdxbuildTarget) args() (args []string) {
	switch t.kind {
	case "", "all":
		return []string{"all"}
	case "table", "area":
		return []string{t.kind, t.name}
	}
	return []string{t.kind}
}

// IdxbuildParams are the tuning parameters of idxbuild (openedge-formats.md
// §4.1); zero values are left out so that the utility's defaults apply.
type IdxbuildParams struct {
	SG, TB, TM, TMB int // sort groups, sort block KB, merge number, merge block KB
	B               int // database buffers
	TF              int // % of memory for merge buffers
	Threadnum       int // > 1 also emits -thread 1
	Mergethreads    int
	Datascanthreads int
	Pfactor         int // index packing factor, %
	Rusage          bool
	Z               bool   // -z, as ProTop's kit passes it
	TempDir         string // -T
	SortFile        string // -SS: a .srt multi-volume sort file
}

// IdxbuildArgs builds, in the order of the reference command line of KB
// 000030594,
//
//	proutil db -C idxbuild target [-SG n] [-TB n] [-TM n] [-TMB n] [-B n] [-TF n]
//	    [-thread 1 -threadnum n] [-mergethreads n] [-datascanthreads n]
//	    [-pfactor n] [-T dir | -SS file] [-rusage] [-z]
func IdxbuildArgs(db string, target IdxbuildTarget, p IdxbuildParams) []string {
	args := append(ProutilArgs(db, "idxbuild"), target.args()...)
	args = appendIntFlag(args, "-SG", p.SG)
	args = appendIntFlag(args, "-TB", p.TB)
	args = appendIntFlag(args, "-TM", p.TM)
	args = appendIntFlag(args, "-TMB", p.TMB)
	args = appendIntFlag(args, "-B", p.B)
	args = appendIntFlag(args, "-TF", p.TF)
	if p.Threadnum > 1 {
		args = append(args, "-thread", "1")
	}
	args = appendIntFlag(args, "-threadnum", p.Threadnum)
	args = appendIntFlag(args, "-mergethreads", p.Mergethreads)
	args = appendIntFlag(args, "-datascanthreads", p.Datascanthreads)
	args = appendIntFlag(args, "-pfactor", p.Pfactor)
	if p.TempDir != "" {
		args = append(args, "-T", p.TempDir)
	}
	if p.SortFile != "" {
		args = append(args, "-SS", p.SortFile)
	}
	if p.Rusage {
		args = append(args, "-rusage")
	}
	if p.Z {
		args = append(args, "-z")
	}
	return args
}

// TabanalysArgs builds proutil db -C tabanalys [-csoutput [-csfilePrefix p]].
func TabanalysArgs(db string, csoutput bool, prefix string) []string {
	args := ProutilArgs(db, "tabanalys")
	if csoutput {
		args = append(args, "-csoutput")
		if prefix != "" {
			args = append(args, "-csfilePrefix", prefix)
		}
	}
	return args
}

// DescribeArgs builds proutil db -C describe.
func DescribeArgs(db string) []string { return ProutilArgs(db, "describe") }

// BusyArgs builds proutil db -C busy; read the exit code with BusyState.
func BusyArgs(db string) []string { return ProutilArgs(db, "busy") }

// HolderArgs builds proutil db -C holder; read the exit code with HolderState.
func HolderArgs(db string) []string { return ProutilArgs(db, "holder") }

// TruncateBIArgs builds proutil db -C truncate bi [-bi kb] [-biblocksize kb];
// 0 leaves a size at the utility's default.
func TruncateBIArgs(db string, biKB, blockKB int) []string {
	args := ProutilArgs(db, "truncate", "bi")
	args = appendIntFlag(args, "-bi", biKB)
	return appendIntFlag(args, "-biblocksize", blockKB)
}

// TruncateAreaArgs builds proutil db -C truncate area name.
func TruncateAreaArgs(db, area string) []string {
	return ProutilArgs(db, "truncate", "area", area)
}

// TablemoveArgs builds proutil db -C tablemove [owner.]table area [index-area].
func TablemoveArgs(db, table, area, indexArea string) []string {
	args := ProutilArgs(db, "tablemove", table, area)
	if indexArea != "" {
		args = append(args, indexArea)
	}
	return args
}

// ProstrctCreateArgs builds prostrct create db file.st [-blocksize n].
func ProstrctCreateArgs(db, st string, blockSize int) []string {
	return appendIntFlag([]string{"create", db, st}, "-blocksize", blockSize)
}

// ProstrctListArgs builds prostrct list db [out.st].
func ProstrctListArgs(db, st string) []string {
	if st == "" {
		return []string{"list", db}
	}
	return []string{"list", db, st}
}

// ProcopyArgs builds procopy empty db, e.g. procopy $DLC/empty8 target.
func ProcopyArgs(empty, db string) []string { return []string{empty, db} }

// ProserveArgs builds proserve db params..., params being broker startup
// parameters already split into argv elements ("-B", "100000").
func ProserveArgs(db string, params ...string) []string {
	return append([]string{db}, params...)
}

// ProshutArgs builds proshut db -by: unconditional batch shutdown, no prompt.
func ProshutArgs(db string) []string { return []string{db, "-by"} }

// ProgresArgs builds _progres -b -db db -p procedure [-param param]: a
// batch ABL session, as oedl runs its helper procedures.
func ProgresArgs(db, procedure, param string) []string {
	args := []string{"-b", "-db", db, "-p", procedure}
	if param != "" {
		args = append(args, "-param", param)
	}
	return args
}

func appendIntFlag(args []string, flag string, v int) []string {
	if v == 0 {
		return args
	}
	return append(args, flag, strconv.Itoa(v))
}
