package openedge

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Version is the first line of $DLC/version, the file every OpenEdge
// install carries ("OpenEdge Release 12.8 as of Wed Jan 24 19:02:14 EST
// 2024"); "" when dlc has none.
func Version(dlc string) string {
	if dlc == "" {
		return ""
	}
	f, err := os.Open(filepath.Join(dlc, "version"))
	if err != nil {
		return ""
	}
	defer f.Close()
	return FirstLine(f)
}

// FirstLine is the version a $DLC/version file read elsewhere (on another
// host) holds: its first line, trimmed.
func FirstLine(r io.Reader) string {
	sc := bufio.NewScanner(r)
	if sc.Scan() {
		return strings.TrimSpace(sc.Text())
	}
	return ""
}
