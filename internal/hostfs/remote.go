package hostfs

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strconv"
	"strings"

	"github.com/oedl/oedl/internal/execx"
)

// Remote is the files of another machine, reached through its runner.
type Remote struct {
	Owned
	Name string       // the host's name, for messages
	R    execx.Runner // an *execx.SSH in oedl; anything that runs argv there in tests
}

func (r *Remote) Host() string { return r.Name }

// statFormat describes one file as GNU stat prints it: the name as
// given, the raw mode in hex, size, device, inode, birth time
// (seconds.nanoseconds, 0 when the filesystem keeps none), modification
// and inode change time (what proves a target unchanged since oedl left
// it, manifest.State), each field NUL-terminated so that no name can
// break the record.
const statFormat = `%n\0%f\0%s\0%d\0%i\0%.9W\0%.9Y\0%.9Z\0`

// statFields is the number of fields of one statFormat record.
const statFields = 8

// sumFunc reads stdin and prints its SHA-256 first, with the first tool
// of sha256sum, shasum, openssl that the host has.
const sumFunc = `sum() { if command -v sha256sum >/dev/null 2>&1; then sha256sum; elif command -v shasum >/dev/null 2>&1; then shasum -a 256; else openssl dgst -sha256 -r; fi; }`

// Scripts run with sh -c SCRIPT sh ARGS...: the script is a constant,
// every name an argument of its own.
const (
	// Missing files are left out (stat complains on stderr and goes on);
	// any other failure of stat is the script's.
	lstatScript = `stat --printf '` + statFormat + `' -- "$@" 2>/dev/null; exit 0`
	// A directory's entries; exit 3 when it is not there.
	listScript = `[ -d "$1" ] || exit 3; cd -- "$1" || exit 1; find . -mindepth 1 -maxdepth 1 -exec stat --printf '` + statFormat + `' -- {} +`
	// Size and SHA-256 of each file, one line each, in order; the first
	// tool of sha256sum, shasum, openssl that the host has.
	sumsScript = sumFunc + `
for f; do s=$(wc -c < "$f") || exit 1; h=$(sum < "$f") || exit 1; printf '%s %s\n' $s "${h%% *}"; done`
	// The file is written, then flushed to the disk before the call ends.
	writeFromScript = `cat > "$1" || exit 1; sync -- "$1" 2>/dev/null || sync`
	// Sums of every regular file of a directory: name, size, SHA-256.
	sumsInScript = `[ -d "$1" ] || exit 3; cd -- "$1" || exit 1; ` + sumFunc + `
for f in * .[!.]* ..?*; do [ -f "$f" ] && [ ! -L "$f" ] || continue; s=$(wc -c < "$f") || exit 1; h=$(sum < "$f") || exit 1; printf '%s %s %s\0' $s "${h%% *}" "$f"; done`
	// The part written, flushed, read back, and renamed only when its
	// size and SHA-256 are the ones expected (exit 9 otherwise).
	writeCheckedScript = sumFunc + `
p="$1"; d="$2"; mkdir -p -- "$(dirname -- "$d")" || exit 1; cat > "$p" || exit 1; sync -- "$p" 2>/dev/null || sync
s=$(wc -c < "$p") || exit 1; h=$(sum < "$p") || exit 1; h="${h%% *}"; printf '%s %s\n' $s "$h"
if [ "$s" = "$3" ] && [ "$h" = "$4" ]; then mv -f -- "$p" "$d"; else rm -f -- "$p"; exit 9; fi`
	// An empty directory, whatever was there.
	freshScript = `rm -rf -- "$1" && mkdir -p -- "$1"`
	// A whole file through a temporary name in its directory.
	writeFileScript = `t="$1.oedl-tmp"; cat > "$t" || { rm -f -- "$t"; exit 1; }; sync -- "$t" 2>/dev/null || sync; mv -f -- "$t" "$1"`
	// Which tools the host lacks.
	toolsScript = `for t in stat find wc cat mv rm mkdir readlink; do command -v "$t" >/dev/null 2>&1 || printf 'missing %s\n' "$t"; done
stat --printf '%.9W' / >/dev/null 2>&1 || echo 'stat is not GNU stat (--printf, %W)'
find / -maxdepth 0 -printf '' >/dev/null 2>&1 || echo 'find is not GNU find (-printf)'
command -v sha256sum >/dev/null 2>&1 || command -v shasum >/dev/null 2>&1 || command -v openssl >/dev/null 2>&1 || echo 'missing sha256sum (or shasum, openssl)'`
)

func (r *Remote) sh(ctx context.Context, script string, args []string, c execx.Cmd) (execx.Result, error) {
	c.Path = "sh"
	c.Args = append([]string{"-c", script, "sh"}, args...)
	return r.R.Run(ctx, c)
}

// call runs a script whose stdout is data (not mixed with stderr).
func (r *Remote) call(ctx context.Context, what, script string, args ...string) ([]byte, execx.Result, error) {
	var out bytes.Buffer
	res, err := r.sh(ctx, script, args, execx.Cmd{Stdout: &out})
	if err != nil {
		return nil, res, r.fail(what, res, err)
	}
	return out.Bytes(), res, nil
}

func (r *Remote) fail(what string, res execx.Result, err error) error {
	var he *execx.HostError
	if errors.As(err, &he) {
		return err
	}
	msg := strings.TrimSpace(res.Output)
	if msg == "" {
		return fmt.Errorf("%s on %s: %w", what, r.Name, err)
	}
	return fmt.Errorf("%s on %s: %v: %s", what, r.Name, err, msg)
}

// CheckTools says what the host lacks of what Remote uses (nil when
// nothing).
func (r *Remote) CheckTools(ctx context.Context) error {
	out, res, err := r.call(ctx, "check tools", toolsScript)
	if err != nil {
		return err
	}
	if s := strings.TrimSpace(string(out) + res.Output); s != "" {
		return fmt.Errorf("host %s cannot serve oedl's file operations (GNU coreutils and findutils are needed): %s",
			r.Name, strings.ReplaceAll(s, "\n", "; "))
	}
	return nil
}

func (r *Remote) Lstat(ctx context.Context, paths ...string) (map[string]Info, error) {
	out := map[string]Info{}
	if len(paths) == 0 {
		return out, nil
	}
	data, _, err := r.call(ctx, "stat", lstatScript, paths...)
	if err != nil {
		return nil, err
	}
	infos, err := ParseStat(data)
	if err != nil {
		return nil, fmt.Errorf("stat on %s: %w", r.Name, err)
	}
	for _, i := range infos {
		out[i.Path] = i
	}
	return out, nil
}

func (r *Remote) Readlink(ctx context.Context, p string) (string, error) {
	data, _, err := r.call(ctx, "readlink", `readlink -- "$1"`, p)
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(string(data), "\n"), nil
}

func (r *Remote) List(ctx context.Context, dir string) ([]Info, error) {
	var out bytes.Buffer
	res, err := r.sh(ctx, listScript, []string{dir}, execx.Cmd{Stdout: &out})
	if err != nil {
		if res.ExitCode == 3 {
			return nil, &fs.PathError{Op: "list", Path: r.Name + ":" + dir, Err: fs.ErrNotExist}
		}
		return nil, r.fail("list "+dir, res, err)
	}
	infos, err := ParseStat(out.Bytes())
	if err != nil {
		return nil, fmt.Errorf("list %s on %s: %w", dir, r.Name, err)
	}
	for i := range infos {
		infos[i].Path = path.Join(dir, strings.TrimPrefix(infos[i].Path, "./"))
	}
	return infos, nil
}

func (r *Remote) Sums(ctx context.Context, paths ...string) ([]Sum, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	data, _, err := r.call(ctx, "sha256", sumsScript, paths...)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	if len(lines) != len(paths) {
		return nil, fmt.Errorf("sha256 on %s: %d answers for %d files", r.Name, len(lines), len(paths))
	}
	out := make([]Sum, len(paths))
	for i, line := range lines {
		size, sum, ok := strings.Cut(line, " ")
		n, err := strconv.ParseInt(size, 10, 64)
		if !ok || err != nil || len(sum) != 64 {
			return nil, fmt.Errorf("sha256 on %s: %q is not a size and a SHA-256", r.Name, line)
		}
		out[i] = Sum{Path: paths[i], Size: n, SHA256: strings.ToLower(sum)}
	}
	return out, nil
}

func (r *Remote) MkdirAll(ctx context.Context, dir string) error {
	_, _, err := r.call(ctx, "mkdir "+dir, `mkdir -p -- "$1"`, dir)
	return err
}

func (r *Remote) RemoveAll(ctx context.Context, p string) error {
	if err := r.owned(ctx, p); err != nil {
		return err
	}
	_, _, err := r.call(ctx, "remove "+p, `rm -rf -- "$1"`, p)
	return err
}

// RemoveFile removes the single file p, never a directory: a target's
// file the proof allowed is removed by it, and if the name became a
// directory since the proof (a check and then a removal over SSH, with a
// round trip between), `rm -rf` would take the whole tree. `rm -f`
// without -r refuses a directory and removes a symbolic link, not what it
// leads to (safety trial 5).
func (r *Remote) RemoveFile(ctx context.Context, p string) error {
	if err := r.owned(ctx, p); err != nil {
		return err
	}
	_, _, err := r.call(ctx, "remove "+p, `rm -f -- "$1"`, p)
	return err
}

func (r *Remote) Rename(ctx context.Context, from, to string) error {
	if err := r.owned(ctx, from); err != nil {
		return err
	}
	if err := r.owned(ctx, to); err != nil {
		return err
	}
	_, _, err := r.call(ctx, "rename "+from, `mv -f -- "$1" "$2"`, from, to)
	return err
}

func (r *Remote) WriteFile(ctx context.Context, p string, data []byte) error {
	res, err := r.sh(ctx, writeFileScript, []string{p}, execx.Cmd{StdinFrom: bytes.NewReader(data)})
	if err != nil {
		return r.fail("write "+p, res, err)
	}
	return nil
}

func (r *Remote) ReadFile(ctx context.Context, p string) ([]byte, error) {
	var out bytes.Buffer
	if err := r.ReadTo(ctx, p, &out); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

func (r *Remote) ReadTo(ctx context.Context, p string, w io.Writer) error {
	res, err := r.sh(ctx, `[ -e "$1" ] || exit 3; exec cat -- "$1"`, []string{p}, execx.Cmd{Stdout: w})
	if err != nil {
		if res.ExitCode == 3 {
			return &fs.PathError{Op: "read", Path: r.Name + ":" + p, Err: fs.ErrNotExist}
		}
		return r.fail("read "+p, res, err)
	}
	return nil
}

func (r *Remote) WriteFrom(ctx context.Context, p string, rd io.Reader) error {
	if err := r.owned(ctx, p); err != nil {
		return err
	}
	res, err := r.sh(ctx, writeFromScript, []string{p}, execx.Cmd{StdinFrom: rd})
	if err != nil {
		return r.fail("write "+p, res, err)
	}
	return nil
}

// ParseStat reads records of statFormat.
func ParseStat(data []byte) ([]Info, error) {
	fields := bytes.Split(data, []byte{0})
	if len(fields) > 0 && len(fields[len(fields)-1]) == 0 {
		fields = fields[:len(fields)-1]
	}
	if len(fields)%statFields != 0 {
		return nil, fmt.Errorf("stat output of %d fields is not records of %d", len(fields), statFields)
	}
	out := make([]Info, 0, len(fields)/statFields)
	for i := 0; i < len(fields); i += statFields {
		f := fields[i : i+statFields]
		mode, err1 := strconv.ParseUint(string(f[1]), 16, 32)
		size, err2 := strconv.ParseInt(string(f[2]), 10, 64)
		dev, err3 := strconv.ParseUint(string(f[3]), 10, 64)
		ino, err4 := strconv.ParseUint(string(f[4]), 10, 64)
		birth, err5 := parseTime(string(f[5]))
		mtime, err6 := parseTime(string(f[6]))
		ctime, err7 := parseTime(string(f[7]))
		if err := errors.Join(err1, err2, err3, err4, err5, err6, err7); err != nil || len(f[0]) == 0 || size < 0 {
			return nil, fmt.Errorf("stat record %d (%q) not understood", i/statFields+1, f[0])
		}
		out = append(out, Info{Path: string(f[0]), Mode: unixMode(uint32(mode)), Size: size, Dev: dev, Ino: ino, Birth: birth,
			Mtime: mtime, Ctime: ctime})
	}
	return out, nil
}

// parseTime reads seconds.nanoseconds (a birth time "0.000000000": not
// kept).
func parseTime(s string) (int64, error) {
	sec, frac, _ := strings.Cut(s, ".")
	n, err := strconv.ParseInt(sec, 10, 64)
	if err != nil || n < 0 || n > 1<<33 {
		return 0, fmt.Errorf("time %q", s)
	}
	var ns int64
	if frac != "" {
		if len(frac) > 9 || strings.Trim(frac, "0123456789") != "" {
			return 0, fmt.Errorf("time %q", s)
		}
		ns, _ = strconv.ParseInt((frac + "000000000")[:9], 10, 64)
	}
	return n*1e9 + ns, nil
}

// unixMode turns st_mode into Go's file mode (type and permissions).
func unixMode(m uint32) fs.FileMode {
	mode := fs.FileMode(m & 0o777)
	switch m & 0o170000 {
	case 0o040000:
		mode |= fs.ModeDir
	case 0o120000:
		mode |= fs.ModeSymlink
	case 0o010000:
		mode |= fs.ModeNamedPipe
	case 0o140000:
		mode |= fs.ModeSocket
	case 0o020000:
		mode |= fs.ModeDevice | fs.ModeCharDevice
	case 0o060000:
		mode |= fs.ModeDevice
	}
	return mode
}

func (r *Remote) WriteChecked(ctx context.Context, part, dst string, rd io.Reader, want Sum) (Sum, error) {
	if err := r.owned(ctx, dst); err != nil {
		return Sum{}, err
	}
	if err := r.owned(ctx, part); err != nil {
		return Sum{}, err
	}
	var out bytes.Buffer
	res, err := r.sh(ctx, writeCheckedScript, []string{part, dst, strconv.FormatInt(want.Size, 10), want.SHA256},
		execx.Cmd{StdinFrom: rd, Stdout: &out})
	got := Sum{Path: dst}
	size, sum, ok := strings.Cut(strings.TrimSpace(out.String()), " ")
	if n, perr := strconv.ParseInt(size, 10, 64); ok && perr == nil {
		got.Size, got.SHA256 = n, sum
	}
	switch {
	case err != nil && res.ExitCode == 9:
		return got, &MismatchError{To: r.Name + ":" + dst, Want: want, Got: got}
	case err != nil:
		return got, r.fail("write "+dst, res, err)
	}
	return got, nil
}

func (r *Remote) Fresh(ctx context.Context, dir string) error {
	if err := r.owned(ctx, dir); err != nil {
		return err
	}
	_, _, err := r.call(ctx, "empty "+dir, freshScript, dir)
	return err
}

func (r *Remote) SumsIn(ctx context.Context, dir string) ([]Sum, error) {
	var out bytes.Buffer
	res, err := r.sh(ctx, sumsInScript, []string{dir}, execx.Cmd{Stdout: &out})
	if err != nil {
		if res.ExitCode == 3 {
			return nil, &fs.PathError{Op: "sums", Path: r.Name + ":" + dir, Err: fs.ErrNotExist}
		}
		return nil, r.fail("sha256 in "+dir, res, err)
	}
	var sums []Sum
	for _, rec := range strings.Split(strings.TrimSuffix(out.String(), "\x00"), "\x00") {
		if rec == "" {
			continue
		}
		f := strings.SplitN(rec, " ", 3)
		n, perr := strconv.ParseInt(f[0], 10, 64)
		if len(f) != 3 || perr != nil || len(f[1]) != 64 {
			return nil, fmt.Errorf("sha256 in %s on %s: %q is not a size, a SHA-256 and a name", dir, r.Name, rec)
		}
		sums = append(sums, Sum{Path: path.Join(dir, f[2]), Size: n, SHA256: strings.ToLower(f[1])})
	}
	return sums, nil
}

// owned refuses a change of p outside what this FS owns, or through a
// symbolic link inside it.
func (r *Remote) owned(ctx context.Context, p string) error {
	if err := r.check(r.Name, p); err != nil {
		return err
	}
	return r.checkNoLink(ctx, r, r.Name, p)
}
