package store

import (
	"errors"
	"fmt"
	"github.com/oedl/oedl/internal/sim/msg"
	"os"
	"path/filepath"
	"time"
)

// DefaultRPB is the records per block an area gets when the .st does not
// say: 64 for 8K blocks, 32 otherwise (the Schema Area always has these).
func DefaultRPB(blockSize int) int {
	if blockSize >= 8192 {
		return 64
	}
	return 32
}

// DefaultAreas is the structure of a database made without a .st (prodb,
// procopy to a new name, the emptyN databases): one variable BI extent and
// a Schema Area with one variable extent, next to DB.db.
func DefaultAreas(p Paths, blockSize int) []*Area {
	dir := filepath.Dir(p.Base)
	return []*Area{
		{Number: 3, Name: "Primary Recovery Area", Type: 'b', Extents: []Extent{{Path: p.ExtentName(dir, 'b', 3, 1)}}},
		{Number: 6, Name: "Schema Area", Type: 'd', RPB: DefaultRPB(blockSize), BPC: 1,
			Extents: []Extent{{Path: p.ExtentName(dir, 'd', 6, 1)}}},
	}
}

// Create writes a new database: its extents (fixed ones at their size,
// their blocks allocated) and DB.db; room is what the call may write
// (nil: the filesystem's own). A void database (prostrct create) has no schema until
// procopy fills it. An existing DB.db is an error, and so is any file an
// extent would be written on (a symbolic link included, whatever it points
// to): nothing is created or changed then (docs/oesim.md, "prostrct create
// and existing files").
func Create(p Paths, areas []*Area, blockSize int, codepage string, void bool, room Room) (*Control, error) {
	if err := CheckCreate(p, areas, blockSize); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(p.Base), 0o755); err != nil {
		return nil, err
	}
	for _, a := range areas {
		for _, e := range a.Extents {
			if err := os.MkdirAll(filepath.Dir(e.Path), 0o755); err != nil {
				return nil, err
			}
		}
		if a.Type == 'd' || a.Type == 'e' {
			if err := Format(a, blockSize, room); err != nil {
				var full *NoRoomError
				if errors.As(err, &full) {
					return nil, err // (6091) names the extent itself
				}
				return nil, fmt.Errorf("format area %q: %w", a.Name, err)
			}
			continue
		}
		for _, e := range a.Extents {
			f, err := os.OpenFile(e.Path, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
			if err != nil {
				return nil, err
			}
			if e.Fixed {
				err = AllocateFixed(f, e.SizeKB*1024, room)
			}
			f.Close()
			if err != nil {
				return nil, err
			}
		}
	}
	now := time.Now().UTC().Truncate(time.Second)
	c := &Control{
		BlockSize: blockSize, Codepage: codepage, Void: void, Created: now, SchemaChanged: now,
		BIBlockKB: 8, BIClusterKB: 512, Areas: areas, NextTable: 1, NextIndex: 8,
	}
	if err := WriteControl(p, c); err != nil {
		return nil, err
	}
	return c, nil
}

// CheckCreate is every refusal of Create that comes before it writes
// anything: the database exists, a file is where an extent would be, the
// block size is not one OpenEdge has. prostrct create -validate runs it
// and writes nothing.
func CheckCreate(p Paths, areas []*Area, blockSize int) error {
	if p.Exists() {
		return msg.E("oesim.db.exists", p.Control())
	}
	for _, a := range areas {
		for _, e := range a.Extents {
			if _, err := os.Lstat(e.Path); err == nil {
				return fmt.Errorf("** %s already exists: prostrct create does not write over an existing file; the database was not created. (oesim)", e.Path)
			}
		}
	}
	switch blockSize {
	case 1024, 2048, 4096, 8192:
	default:
		return msg.E("oesim.db.blocksize.invalid", blockSize)
	}
	return nil
}

// Remove deletes every file of a database (DB.db last).
func Remove(p Paths) error {
	c, err := ReadControl(p)
	if err != nil {
		return err
	}
	for _, a := range c.Areas {
		for _, e := range a.Extents {
			os.Remove(e.Path)
		}
	}
	os.Remove(p.Lock())
	return os.Remove(p.Control())
}
