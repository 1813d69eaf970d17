package openedge

import (
	"bufio"
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
	sc := bufio.NewScanner(f)
	if sc.Scan() {
		return strings.TrimSpace(sc.Text())
	}
	return ""
}
