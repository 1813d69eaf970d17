package msg

import (
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/golden"
)

// docsPath is the documentation of oesim, whose table of messages is the
// catalog's; go test -update rewrites the table.
const docsPath = "../../../docs/oesim.md"

const (
	tableBegin = "<!-- messages:begin (go test ./internal/sim/msg -update rewrites this table) -->\n"
	tableEnd   = "<!-- messages:end -->\n"
)

// TestDocsListCatalog: docs/oesim.md lists every message oesim prints, in
// every language, with how sure each text is, exactly as the catalog has
// them.
func TestDocsListCatalog(t *testing.T) {
	data, err := os.ReadFile(docsPath)
	require.NoError(t, err)
	doc := string(data)
	begin, end := strings.Index(doc, tableBegin), strings.Index(doc, tableEnd)
	require.True(t, begin >= 0 && end > begin, "%s has no messages table between %q and %q", docsPath, tableBegin, tableEnd)
	want := doc[:begin+len(tableBegin)] + markdownTable() + doc[end:]
	if golden.Update() {
		require.NoError(t, os.WriteFile(docsPath, []byte(want), 0o644))
		return
	}
	require.Equal(t, want, doc, "the messages table of %s differs from the catalog (go test -update)", docsPath)
}

func markdownTable() string {
	var b strings.Builder
	b.WriteString("| Message | English | Portuguese | German | Seen |\n|---|---|---|---|---|\n")
	for _, e := range Catalog {
		key := e.Key
		if e.Num > 0 {
			key = "(" + strconv.Itoa(e.Num) + ")"
		}
		b.WriteString("| " + key)
		for _, l := range Langs() {
			b.WriteString(" | " + cell(e.format(l)))
		}
		b.WriteString(" | " + e.Seen + " |\n")
	}
	return b.String()
}

// cell writes a format in a table cell: code, a line break as " / ".
func cell(s string) string {
	s = strings.ReplaceAll(s, "\n", " / ")
	s = strings.ReplaceAll(s, "|", `\|`)
	return "`" + strings.TrimSpace(s) + "`"
}
