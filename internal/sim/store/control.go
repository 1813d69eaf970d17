package store

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/oedl/oedl/internal/sim/msg"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/oedl/oedl/internal/atomicfile"
	"github.com/oedl/oedl/internal/openedge"
)

// ControlVersion is the version of the DB.db format. Version 2 keeps the
// .df option lines of every table, field, index and sequence; a version 1
// DB.db still reads, as a schema loaded without them.
const ControlVersion = 2

// controlMagic starts DB.db; the rest is the Control in the codec of
// codec.go, which every utility call decodes: start-up time is what a plan
// of hundreds of utility calls pays for.
const controlMagic = "OESIM-DB 2\n"

// Control is the content of DB.db.
type Control struct {
	Format    int    `json:"oesimControl"`
	BlockSize int    `json:"blockSize"`
	Codepage  string `json:"codepage"`
	// DFCodepage is the cpstream of the .df whose bytes the schema's option
	// lines are (the last one loaded with a codepage): oesim keeps them
	// unconverted, so dump_df.p names that codepage in its trailer.
	DFCodepage    string      `json:"dfCodepage,omitempty"`
	Void          bool        `json:"void"` // created by prostrct, no meta-schema yet (procopy fills it)
	Created       time.Time   `json:"created"`
	LastOpened    time.Time   `json:"lastOpened"`
	SchemaChanged time.Time   `json:"schemaChanged"`
	BIBlockKB     int         `json:"biBlockKB"`
	BIClusterKB   int         `json:"biClusterKB"`
	Areas         []*Area     `json:"areas"`
	Tables        []*Table    `json:"tables"`
	Sequences     []*Sequence `json:"sequences,omitempty"`
	// Security is the _User rows and the SQL grants and views: meta-schema
	// rows a binary dump does not carry (dump_security.p does).
	Security  openedge.Security `json:"security"`
	NextTable int               `json:"nextTable"`
	NextIndex int               `json:"nextIndex"`
	// AIBegun and Replication are what describe reports of after-imaging
	// (its section) and OpenEdge Replication (feature 1): what a dump and
	// load does not carry and the DBA must enable again on the target.
	AIBegun     bool `json:"aiBegun,omitempty"`
	Replication bool `json:"replication,omitempty"`
}

// Area is one storage area with its extents.
type Area struct {
	Number  int      `json:"number"`
	Name    string   `json:"name"`
	Type    byte     `json:"type"` // 'd', 'b', 'a', 't'
	RPB     int      `json:"rpb"`
	BPC     int      `json:"bpc"` // 1 = Type I; 8, 64, 512 = Type II
	Extents []Extent `json:"extents"`
}

// Extent is one file of an area.
type Extent struct {
	Path string `json:"path"` // absolute
	// Relative is the path as the control area of a relative-path
	// database holds it ("./sports_7.d1"), resolved into Path against the
	// directory of the .db whatever the current directory, as OpenEdge
	// does: such a database is copied with OS tools and opened from
	// anywhere. Empty in an absolute-path database. See docs/oesim.md.
	Relative string `json:"relative,omitempty"`
	Fixed    bool   `json:"fixed,omitempty"`
	SizeKB   int64  `json:"sizeKB,omitempty"`
}

// TypeII reports whether a cluster belongs to one object.
func (a *Area) TypeII() bool { return a.BPC == 8 || a.BPC == 64 || a.BPC == 512 }

// AreaByNumber finds an area.
func (c *Control) AreaByNumber(n int) *Area {
	for _, a := range c.Areas {
		if a.Number == n {
			return a
		}
	}
	return nil
}

// AreaByName finds an area by name, case-insensitively.
func (c *Control) AreaByName(name string) *Area {
	for _, a := range c.Areas {
		if strings.EqualFold(a.Name, name) {
			return a
		}
	}
	return nil
}

// AreaName is the name of area n ("" if unknown).
func (c *Control) AreaName(n int) string {
	if a := c.AreaByNumber(n); a != nil {
		return a.Name
	}
	return ""
}

// Table finds a table by "name" or "owner.name", case-insensitively.
func (c *Control) Table(name string) *Table {
	owner := ""
	if i := strings.IndexByte(name, '.'); i > 0 {
		owner, name = name[:i], name[i+1:]
	}
	for _, t := range c.Tables {
		if strings.EqualFold(t.Name, name) && (owner == "" || strings.EqualFold(owner, t.Owner)) {
			return t
		}
	}
	return nil
}

// TableByNumber finds a table by _File-Number.
func (c *Control) TableByNumber(n int) *Table {
	for _, t := range c.Tables {
		if t.Number == n {
			return t
		}
	}
	return nil
}

// Paths names the files of a database from the name given on a command
// line ("dir/db" or "dir/db.db").
type Paths struct{ Base string }

// PathsFor normalises a database argument.
func PathsFor(db string) Paths {
	db = strings.TrimSuffix(db, ".db")
	if abs, err := filepath.Abs(db); err == nil {
		db = abs
	}
	return Paths{Base: db}
}

// Name is the database's base name without directory.
func (p Paths) Name() string { return filepath.Base(p.Base) }

// Control is DB.db.
func (p Paths) Control() string { return p.Base + ".db" }

// Lock is DB.lk.
func (p Paths) Lock() string { return p.Base + ".lk" }

// Log is DB.lg.
func (p Paths) Log() string { return p.Base + ".lg" }

// SchemaLock is the file whose flock serialises the changes to DB.db
// (DB.db itself is replaced by a rename: a lock on it would be on a file
// nobody reads any more). It is the database's first before-image
// extent, wherever its structure put it, as OpenEdge's BI plays that
// part: a lock file of oesim's own beside DB.db (it was always DB.b1)
// left an empty DB.b1 there when target.st put the BI elsewhere, a file
// a real OpenEdge does not leave and the manifest of the target does not
// list. DB.b1 only while DB.db does not exist yet or cannot be read (its
// reader then fails with the reason).
func (p Paths) SchemaLock() string { return p.schemaLockAt(p.firstBIExtent()) }

// schemaLockAt is the schema lock for a database whose first BI extent is
// bi ("" when it is not known).
func (p Paths) schemaLockAt(bi string) string {
	if bi != "" {
		return bi
	}
	return p.Base + ".b1"
}

// headRead is how much of DB.db firstBIExtent reads first: the areas come
// before the schema, and a structure of hundreds of extents fits.
const headRead = 64 << 10

// firstBIExtent is the path of the first extent of the database's BI
// area, read from the head of DB.db ("" when it cannot be read). The path
// never changes once the database exists: extents are only added after
// it.
func (p Paths) firstBIExtent() string {
	f, err := os.Open(p.Control())
	if err != nil {
		return ""
	}
	defer f.Close()
	b := make([]byte, headRead)
	n, err := io.ReadFull(f, b)
	whole := err != nil // io.EOF or io.ErrUnexpectedEOF: the file is all in
	bi, err := firstBIIn(b[:n])
	if errors.Is(err, errControlShort) && !whole {
		rest, rerr := io.ReadAll(f)
		if rerr != nil {
			return ""
		}
		bi, _ = firstBIIn(append(b, rest...))
	}
	if bi != "" && !filepath.IsAbs(bi) {
		// A relative-path database's: from the .db's directory, not the
		// current one (a lock there would create the file).
		bi = filepath.Join(filepath.Dir(p.Base), bi)
	}
	return bi
}

// firstBIIn is the first BI extent's path in the head of DB.db's bytes b.
func firstBIIn(b []byte) (string, error) {
	if !bytes.HasPrefix(b, []byte(controlMagic)) {
		return "", errors.New("not a control file")
	}
	b = b[len(controlMagic):]
	d := &decoder{b: b, all: string(b)}
	var c Control
	decodeHead(d, &c)
	if d.err != nil {
		return "", d.err
	}
	return c.firstBIExtent(), nil
}

// firstBIExtent is the path of the first extent of c's BI area ("" when
// it has none).
func (c *Control) firstBIExtent() string {
	for _, a := range c.Areas {
		if a.Type == 'b' && len(a.Extents) > 0 {
			return a.Extents[0].Path
		}
	}
	return ""
}

// ExtentName is the default file name of extent m of an area of type typ,
// placed in dir: db.b1, db.d1 (Schema Area), db_N.dM, db.aM, db.tM.
func (p Paths) ExtentName(dir string, typ byte, area, m int) string {
	name := p.Name()
	switch {
	case typ == 'd' && area == 6:
		return filepath.Join(dir, fmt.Sprintf("%s.d%d", name, m))
	case typ == 'd' || typ == 'e': // the Encryption Policy Area is laid out as a data area
		return filepath.Join(dir, fmt.Sprintf("%s_%d.d%d", name, area, m))
	default:
		return filepath.Join(dir, fmt.Sprintf("%s.%c%d", name, typ, m))
	}
}

// Exists reports whether DB.db exists.
func (p Paths) Exists() bool {
	_, err := os.Stat(p.Control())
	return err == nil
}

// Check is nil when DB.db can be looked up, else the (43) naming it with
// the errno of the failure (2: it does not exist).
func (p Paths) Check() error {
	_, err := os.Stat(p.Control())
	if err == nil {
		return nil
	}
	return CannotOpen(p.Control(), err)
}

// CannotOpenError is "** Cannot find or open file X, errno = N. (43)", N
// the system's errno (2 missing, 13 permission denied, ...): OpenEdge
// reports every database file it cannot open so, and a DBA (and oedl)
// tells the cause from N (openedge-formats.md §8).
type CannotOpenError struct {
	Path  string
	Errno syscall.Errno
}

func (e *CannotOpenError) Error() string { return e.Message().Error() }

// Message is the catalog message the utility prints for the error.
func (e *CannotOpenError) Message() *msg.Error { return msg.E("43", e.Path, int(e.Errno)) }

// CannotOpen is the (43) of err, the failure to open or look up path: its
// errno, or 2 for a file that does not exist; err itself when it carries
// neither.
func CannotOpen(path string, err error) error {
	var errno syscall.Errno
	switch {
	case errors.As(err, &errno):
		return &CannotOpenError{Path: path, Errno: errno}
	case errors.Is(err, fs.ErrNotExist):
		return &CannotOpenError{Path: path, Errno: syscall.ENOENT}
	}
	return err
}

// ReadControl reads DB.db.
func ReadControl(p Paths) (*Control, error) {
	c, cf, err := readControlFile(p)
	if err == nil {
		cf.f.Close()
	}
	return c, err
}

// controlFile is the version of DB.db a Control was read from: the file,
// kept open so that its identity (its inode) cannot be reused while held,
// and how far it was read.
type controlFile struct {
	f        *os.File
	base     int64 // the end of the full Control, its magic included
	valid    int64 // the end of the last whole schema note (schemanotes.go)
	complete bool  // the Control has every section: notes may follow it
}

// readControlFile reads DB.db and keeps it open (nil file on error).
func readControlFile(p Paths) (*Control, controlFile, error) {
	f, err := os.Open(p.Control())
	if err != nil {
		return nil, controlFile{}, CannotOpen(p.Control(), err)
	}
	b, err := io.ReadAll(f)
	if err != nil {
		f.Close()
		return nil, controlFile{}, err
	}
	c, cf, err := decodeControl(p, b)
	if err != nil {
		f.Close()
		return nil, controlFile{}, err
	}
	cf.f = f
	return c, cf, nil
}

func decodeControl(p Paths, b []byte) (*Control, controlFile, error) {
	if !bytes.HasPrefix(b, []byte(controlMagic)) {
		return nil, controlFile{}, msg.E("oesim.db.notcontrol", p.Control())
	}
	c, n, complete, err := decodeControlBase(b[len(controlMagic):])
	if err != nil || (c.Format != ControlVersion && c.Format != 1) || (!complete && len(controlMagic)+n != len(b)) {
		return nil, controlFile{}, msg.E("oesim.db.damaged", p.Control())
	}
	resolveRelative(p, c)
	base := int64(len(controlMagic) + n)
	notes, err := applyNotes(c, b[base:])
	if err != nil {
		return nil, controlFile{}, msg.E("oesim.db.damaged", p.Control())
	}
	return c, controlFile{base: base, valid: base + int64(notes), complete: complete}, nil
}

// resolveRelative gives every extent stored relative its path from the
// directory of the .db.
func resolveRelative(p Paths, c *Control) {
	for _, a := range c.Areas {
		for i, e := range a.Extents {
			if !filepath.IsAbs(e.Path) {
				a.Extents[i].Relative = e.Path
				a.Extents[i].Path = filepath.Join(filepath.Dir(p.Base), e.Path)
			}
		}
	}
}

// RelativePath reports whether the database is a relative-path one: every
// extent stored relative to the .db's directory (prodb of a relative-path
// database such as $DLC/empty makes one; prostrct add ends it).
func (c *Control) RelativePath() bool {
	for _, a := range c.Areas {
		for _, e := range a.Extents {
			if e.Relative == "" {
				return false
			}
		}
	}
	return len(c.Areas) > 0
}

// MakeRelative stores every extent of areas relative to the .db's
// directory, where all of them must be (a relative-path database has all
// its files beside the control area).
func MakeRelative(p Paths, areas []*Area) error {
	dir := filepath.Dir(p.Base)
	for _, a := range areas {
		for i, e := range a.Extents {
			if filepath.Dir(e.Path) != dir {
				return fmt.Errorf("%s is not in %s: a relative-path database has every extent beside its .db", e.Path, dir)
			}
			a.Extents[i].Relative = "./" + filepath.Base(e.Path)
		}
	}
	return nil
}

// MakeAbsolute stores every extent by its absolute path, as prostrct add
// leaves a relative-path database.
func (c *Control) MakeAbsolute() {
	for _, a := range c.Areas {
		for i := range a.Extents {
			a.Extents[i].Relative = ""
		}
	}
}

// WriteControl writes DB.db atomically (temp + rename), with no schema
// notes after it.
func WriteControl(p Paths, c *Control) error {
	c.Format = ControlVersion
	return atomicfile.WriteFileNoSync(p.Control(), append([]byte(controlMagic), encodeControl(c)...))
}

// FileLock takes an flock on path (created if missing): exclusive or
// shared. It blocks until granted; the returned func releases it.
func FileLock(path string, exclusive bool) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	unlock, err := Flock(f, exclusive)
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() { unlock(); f.Close() }, nil
}

// Flock takes an flock on the open file f, exclusive or shared, again
// when a signal interrupts the wait; the returned func releases it (f
// stays open).
func Flock(f *os.File, exclusive bool) (func(), error) {
	how := syscall.LOCK_SH
	if exclusive {
		how = syscall.LOCK_EX
	}
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if err == nil {
			return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }, nil
		}
		if !errors.Is(err, syscall.EINTR) {
			return nil, fmt.Errorf("lock %s: %w", f.Name(), err)
		}
	}
}
