package plan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/oedl/oedl/internal/atomicfile"
	"github.com/oedl/oedl/internal/openedge"
)

// File names of a plan directory.
const (
	FileStructure = "target.st"
	FileDF        = "target.df"
	FileTablemove = "tablemove.sh"
	FileAddAreas  = "tablemove.st"
	FilePlacement = "placement.md"
	FilePF        = "target.pf"
	FilePlan      = "plan.json"
	// The source's report and .df that `oedl plan --source` keeps beside
	// the plan (source.tba: the tabanalys report an earlier oedl kept).
	FileSourceAnalysis = "source.dba"
	FileSourceDF       = "source.df"
	fileSourceTBA      = "source.tba"
)

// planFiles are the names a plan directory may hold: what Render and
// `oedl plan` write there. A directory holding anything else is not only
// a plan, and WriteDir never replaces it.
var planFiles = map[string]bool{
	FileStructure: true, FileDF: true, FileTablemove: true, FileAddAreas: true, FilePlacement: true,
	FilePF: true, FilePlan: true, FileSourceAnalysis: true, FileSourceDF: true, fileSourceTBA: true,
}

// File is one rendered file of a plan directory.
type File struct {
	Name string
	Mode fs.FileMode
	Data []byte
}

// Render produces the files of a plan directory in memory: target.st
// (checked by openedge's validator as it will be read back), target.df when
// df is given (a rewritten copy: df itself is not changed), tablemove.sh
// with tablemove.st (the areas to add online first), placement.md,
// target.pf and plan.json.
func Render(p *Plan, df *openedge.DF) ([]File, error) {
	var files []File
	add := func(name string, mode fs.FileMode, write func(*bytes.Buffer) error) error {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		files = append(files, File{Name: name, Mode: mode, Data: b.Bytes()})
		return nil
	}
	steps := []struct {
		name  string
		mode  fs.FileMode
		write func(*bytes.Buffer) error
	}{
		{FileStructure, 0o644, func(b *bytes.Buffer) error { return writeStructure(b, p.Structure()) }},
		{FileAddAreas, 0o644, func(b *bytes.Buffer) error { return writeStructure(b, p.AddStructure()) }},
		{FileTablemove, 0o755, func(b *bytes.Buffer) error { return WriteTablemove(b, p) }},
		{FilePlacement, 0o644, func(b *bytes.Buffer) error { return WritePlacement(b, p) }},
		{FilePF, 0o644, func(b *bytes.Buffer) error { return WritePF(b, p) }},
		{FilePlan, 0o644, func(b *bytes.Buffer) error { return WriteJSON(b, p) }},
	}
	if df != nil {
		steps = append(steps, struct {
			name  string
			mode  fs.FileMode
			write func(*bytes.Buffer) error
		}{FileDF, 0o644, func(b *bytes.Buffer) error { return writeTargetDF(b, p, df) }})
	}
	for _, s := range steps {
		if err := add(s.name, s.mode, s.write); err != nil {
			return nil, err
		}
	}
	if err := checkRendered(p, files); err != nil {
		return nil, err
	}
	return files, nil
}

// checkRendered holds the rendered target.st and target.df together with
// the plan (Check), read back as oedl run will read them: a plan that
// cannot run is not written.
func checkRendered(p *Plan, files []File) error {
	var st *openedge.Structure
	var df *openedge.DF
	for _, f := range files {
		var err error
		switch f.Name {
		case FileStructure:
			st, err = openedge.ParseStructure(bytes.NewReader(f.Data), FileStructure)
		case FileDF:
			df, err = openedge.ParseDF(bytes.NewReader(f.Data), FileDF)
		}
		if err != nil {
			return err
		}
	}
	return Check(p, st, df)
}

// writeStructure writes a .st and validates what was written, parsed
// back, so that an error names the line of the file the user would see.
func writeStructure(b *bytes.Buffer, st *openedge.Structure) error {
	if err := openedge.WriteStructure(b, st); err != nil {
		return err
	}
	back, err := openedge.ParseStructure(bytes.NewReader(b.Bytes()), st.Source)
	if err != nil {
		return err
	}
	return back.Validate()
}

// InvalidError is a plan that cannot be rendered or does not hold together
// (Check): bad input, nothing written.
type InvalidError struct{ Err error }

func (e *InvalidError) Error() string { return e.Err.Error() }
func (e *InvalidError) Unwrap() error { return e.Err }

// WriteJSON writes plan.json: indented, with a final newline.
func WriteJSON(w io.Writer, p *Plan) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(p)
}

// ReadJSON reads a plan.json written by WriteJSON.
func ReadJSON(path string) (*Plan, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var p Plan
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if p.Version != PlanVersion {
		return nil, fmt.Errorf("%s: plan version %d, this oedl reads version %d", path, p.Version, PlanVersion)
	}
	return &p, nil
}

// WriteDir writes the plan directory dir all or nothing: every file is
// rendered and checked in memory, written into a temporary directory beside
// dir, and that directory is renamed into place. A directory from an
// earlier plan (it holds plan.json) is replaced; any other non-empty
// directory is left alone and is an error. extra files (the source report
// and .df of --source mode) are written beside the plan's own.
func WriteDir(dir string, p *Plan, df *openedge.DF, extra ...File) error {
	files, err := Render(p, df)
	if err != nil {
		return &InvalidError{Err: err}
	}
	files = append(files, extra...)
	dir = filepath.Clean(dir)
	ours := map[string]bool{}
	for _, f := range files {
		ours[f.Name] = true
	}
	if err := checkReplaceable(dir, ours); err != nil {
		return err
	}
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return err
	}
	tmp, err := atomicfile.MkdirTemp(parent, "."+filepath.Base(dir)+".new-")
	if err != nil {
		return err
	}
	ok := false
	defer func() {
		if !ok {
			os.RemoveAll(tmp)
		}
	}()
	for _, f := range files {
		if err := writeFileSync(filepath.Join(tmp, f.Name), f.Data, f.Mode); err != nil {
			return err
		}
	}
	if err := swapDir(tmp, dir); err != nil {
		return err
	}
	ok = true
	return nil
}

// ErrNotPlanDir is returned (wrapped) by WriteDir for an output directory
// that holds files but no plan.json: it is never replaced.
var ErrNotPlanDir = errors.New("not empty and holds no " + FilePlan + ": refusing to replace it with a plan")

// checkReplaceable refuses to replace a directory that is not a plan: one
// without plan.json, or one holding anything but a plan's files (regular
// files named as planFiles, or as this write's own files). Replacing
// removes the whole directory, and plan.json alone proves nothing: a run's
// work directory holds one beside its journal and dumps (`oedl plan -o
// WORK` given for --work), and a DBA may have copied a plan among other
// files (safety trial 5).
func checkReplaceable(dir string, ours map[string]bool) error {
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case len(entries) == 0:
		return nil
	}
	if _, err := os.Stat(filepath.Join(dir, FilePlan)); err != nil {
		return fmt.Errorf("%s is %w", dir, ErrNotPlanDir)
	}
	var others []string
	for _, e := range entries {
		if !e.Type().IsRegular() || !(planFiles[e.Name()] || ours[e.Name()]) {
			others = append(others, e.Name())
		}
	}
	if len(others) > 0 {
		if len(others) > 5 {
			others = append(others[:5], fmt.Sprintf("and %d more", len(others)-5))
		}
		return fmt.Errorf("%s %w: it holds %s, which no plan writes", dir, ErrNotOnlyPlan, strings.Join(others, ", "))
	}
	return nil
}

// CheckOnlyPlan refuses a directory holding anything but a plan's files,
// or files but no plan.json: what WriteDir refuses to replace, for a
// caller that clears a plan directory itself (oedl demo).
func CheckOnlyPlan(dir string) error { return checkReplaceable(dir, nil) }

// ErrNotOnlyPlan is returned (wrapped) by WriteDir for an output directory
// that holds a plan.json and other files: it is never replaced.
var ErrNotOnlyPlan = errors.New("holds more than a plan: refusing to replace it")

// swapDir renames tmp to dir, moving an existing dir aside first and
// removing it once the new one is in place.
func swapDir(tmp, dir string) error {
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		return os.Rename(tmp, dir)
	}
	old, err := os.MkdirTemp(filepath.Dir(dir), "."+filepath.Base(dir)+".old-")
	if err != nil {
		return err
	}
	// old must not exist for the rename of a directory onto it.
	if err := os.Remove(old); err != nil {
		return err
	}
	if err := os.Rename(dir, old); err != nil {
		return err
	}
	if err := os.Rename(tmp, dir); err != nil {
		_ = os.Rename(old, dir) // put the previous plan back
		return err
	}
	return os.RemoveAll(old)
}

func writeFileSync(path string, data []byte, mode fs.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return nil
}
