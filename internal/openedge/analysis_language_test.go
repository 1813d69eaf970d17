package openedge

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The block count and use lines after a summary's Totals: are messages
// (3921, 3922: "1103 RM block(s) found in the database.", "52.35% of the
// RM block space is used."), worded by the message file: they are read by
// position and by their first word, so a translated file gives the same
// numbers. oedl read them by their English words, and a translation left
// them 0 without a word.
func TestParseAnalysisTranslatedBlockLines(t *testing.T) {
	german := strings.NewReplacer(
		" RM block(s) found in the database.", " RM-Block(s) in der Datenbank gefunden.",
		"% of the RM block space is used.", "% des RM-Blockplatzes sind belegt.",
		" index block(s) found in the database.", " Indexblock/-blöcke in der Datenbank gefunden.",
		"% of the index block space is used.", "% des Indexblockplatzes sind belegt.")
	for _, path := range analysisFixtures(t) {
		f := filepath.Base(path)
		t.Run(f, func(t *testing.T) {
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			want := parseFixture(t, path)
			require.Positive(t, want.RMBlocks)
			got, err := ParseAnalysis(strings.NewReader(german.Replace(string(b))), f)
			require.NoError(t, err)
			assert.Equal(t, want, got)
		})
	}
}

// The header's labels are messages (3868 "Database: %s", 8361 "Blocksize:
// %i", 14178, 3869 "Options:", 3870 "Date:"): a message file words them,
// the layout stays. oedl read them by their English labels, and a
// translated header left the source's block size 0, which the plan's
// check and the estimate's price read as unknown.
func TestParseAnalysisTranslatedHeader(t *testing.T) {
	german := strings.NewReplacer("\nDatabase: ", "\nDatenbank: ", "\nBlocksize: ", "\nBlockgröße: ",
		"\nRecSpaceSearchDepth: ", "\nSuchtiefe des Datensatzplatzes: ", "\nOptions: ", "\nOptionen: ", "\nDate: ", "\nDatum: ")
	for _, path := range analysisFixtures(t) {
		f := filepath.Base(path)
		t.Run(f, func(t *testing.T) {
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			de := german.Replace(string(b))
			require.NotContains(t, de, "Blocksize:")
			want := parseFixture(t, path)
			require.Positive(t, want.BlockSize)
			got, err := ParseAnalysis(strings.NewReader(de), f)
			require.NoError(t, err)
			assert.Equal(t, want, got)
		})
	}
	_, err := ParseAnalysis(strings.NewReader("PROGRESS Database Analysis\nDatenbank: /db/x\nBlockgröße: acht\n"), "x")
	assert.ErrorContains(t, err, `x:3: the block size (the header's second value) "acht" is not a number`)
}

// Report headings are messages too (6129 "RECORD BLOCK SUMMARY", 14212,
// 16656 "Summary for AREA", 9894 "Subtotals:", 6130 "Totals:"), but the
// only non-English reports seen keep them in English (docs/oesim.md), and
// oedl finds the tables by them. A report whose headings a message file
// translated is refused with the line it stopped at, never read as fewer
// tables.
func TestParseAnalysisRefusesTranslatedHeadings(t *testing.T) {
	headings := [][2]string{
		{"RECORD BLOCK SUMMARY", "ZUSAMMENFASSUNG DER DATENSATZBLÖCKE"},
		{"RECORD BLOCK SUMMARY FOR AREA", "ZUSAMMENFASSUNG DER DATENSATZBLÖCKE FÜR BEREICH"},
		{"Subtotals:", "Zwischensummen:"},
		{"Totals:", "Summen:"},
	}
	for _, path := range analysisFixtures(t) {
		f := filepath.Base(path)
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		for _, h := range headings {
			t.Run(f+"/"+h[0], func(t *testing.T) {
				_, err := ParseAnalysis(strings.NewReader(strings.ReplaceAll(string(b), h[0], h[1])), f)
				require.Error(t, err)
				assert.Contains(t, err.Error(), f)
			})
		}
	}
}
