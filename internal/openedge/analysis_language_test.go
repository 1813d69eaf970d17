package openedge

import (
	"encoding/json"
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
// 16656 "Summary for AREA", 9894 "Subtotals:", 6130 "Totals:", ...): a
// message file words them, and oedl finds the sections by their shape.
// Before, a translated heading was refused (or its tables were not read).
// Each heading translated alone must give the English report's parse.
func TestParseAnalysisTranslatedHeadings(t *testing.T) {
	headings := [][2]string{
		{"RECORD BLOCK SUMMARY FOR AREA", "DATENSATZBLOCK-ZUSAMMENFASSUNG FÜR BEREICH"},
		{"RECORD BLOCK SUMMARY FOR SHARED TABLES", "DATENSATZBLOCK-ZUSAMMENFASSUNG FÜR GEMEINSAME TABELLEN"},
		{"RECORD BLOCK SUMMARY", "DATENSATZBLOCK-ZUSAMMENFASSUNG"},
		{"INDEX BLOCK SUMMARY FOR AREA", "INDEXBLOCK-ZUSAMMENFASSUNG FÜR BEREICH"},
		{"INDEX BLOCK SUMMARY FOR SHARED OBJECTS:", "INDEXBLOCK-ZUSAMMENFASSUNG FÜR GEMEINSAME OBJEKTE:"},
		{"INDEX BLOCK SUMMARY", "INDEXBLOCK-ZUSAMMENFASSUNG"},
		{"Summary for AREA", "Zusammenfassung für BEREICH"},
		{"Subtotals:", "Zwischensummen:"},
		{"Totals:", "Summen:"},
		{"CHAIN ANALYSIS FOR AREA", "KETTENANALYSE FÜR BEREICH"},
		{"DATABASE SUMMARY", "DATENBANK-ZUSAMMENFASSUNG"},
		{"\nSUMMARY FOR AREA", "\nZUSAMMENFASSUNG FÜR BEREICH"},
	}
	for _, path := range analysisFixtures(t) {
		f := filepath.Base(path)
		b, err := os.ReadFile(path)
		require.NoError(t, err)
		want := parseFixture(t, path)
		for _, h := range headings {
			t.Run(f+"/"+strings.TrimSpace(h[0]), func(t *testing.T) {
				// The LOB heading stays English (it is found by its words).
				tr := strings.ReplaceAll(string(b), h[0], h[1])
				// and the tenant's is tested below.
				tr = strings.ReplaceAll(tr, "LOB "+h[1], "LOB "+strings.TrimPrefix(h[0], "\n"))
				tr = strings.ReplaceAll(tr, h[1]+" FOR TENANT", h[0]+" FOR TENANT")
				got, err := ParseAnalysis(strings.NewReader(tr), f)
				require.NoError(t, err)
				assert.Equal(t, want, got)
			})
		}
	}
	// A tenant's heading is kept whole: its words cannot be cut off.
	b, err := os.ReadFile("testdata/analysis/partitions_11.7.tabanalys")
	require.NoError(t, err)
	const tenant = "DATENSATZBLOCK-ZUSAMMENFASSUNG FÜR MANDANT acme: 2"
	got, err := ParseAnalysis(strings.NewReader(strings.ReplaceAll(string(b), "RECORD BLOCK SUMMARY FOR TENANT acme: 2", tenant)), "p")
	require.NoError(t, err)
	want := parseFixture(t, "testdata/analysis/partitions_11.7.tabanalys")
	for i := range want.Tables {
		if want.Tables[i].Tenancy != "" {
			want.Tables[i].Tenancy = tenant
		}
	}
	assert.Equal(t, want, got)
}

// The translated fixtures (testdata/analysis/translated, synthetic: see its
// README) are whole reports in German and Portuguese, the German one with
// page headers between its sections: each must give its English original's
// golden, byte for byte.
func TestParseAnalysisTranslatedFixtures(t *testing.T) {
	names, err := filepath.Glob("testdata/analysis/translated/*analys")
	require.NoError(t, err)
	require.Len(t, names, 2)
	for _, path := range names {
		f := filepath.Base(path)
		t.Run(f, func(t *testing.T) {
			ext := filepath.Ext(f)
			lang := filepath.Ext(strings.TrimSuffix(f, ext))
			original := strings.TrimSuffix(f, lang+ext) + ext
			want, err := os.ReadFile(filepath.Join("testdata/analysis", original+".json"))
			require.NoError(t, err)
			a := parseFixture(t, path)
			js, err := json.MarshalIndent(a, "", "  ")
			require.NoError(t, err)
			assert.Equal(t, string(want), string(js)+"\n")
		})
	}
}

// Where the shape does not say what a line is, the report is refused at
// the line, never read as fewer tables.
func TestParseAnalysisRefusesAmbiguousStructure(t *testing.T) {
	const head = "PROGRESS Database Analysis\n\nDatabase: /db/x\nBlocksize: 8192\n\n"
	const row = "PUB.a 1 1.0B 1 1 1 1 1.0 1.0\n"
	tests := []struct{ name, input, want string }{
		{"a translated Totals: as the last line: no block count says it is not a Subtotals:",
			head + "ZUSAMMENFASSUNG FÜR BEREICH \"D\": 7\n----------\n" + row + "Summen: 1 1.0B 1 1 1 1 1.0 1.0\n",
			`r:9: "Summen: 1 1.0B 1 1 1 1 1.0 1.0" is the last line`},
		{"index rows in a record summary without its Totals:",
			head + "RECORD BLOCK SUMMARY\nRECORD BLOCK SUMMARY FOR AREA \"D\": 7\n----------\n" + row +
				"INDEXBLOCK FÜR BEREICH \"D\": 7\n----------\nPUB.a\n  ix 1 1 1 1 1.0B 1.0 1.0\n",
			"r:10: RECORD BLOCK SUMMARY ends without its Totals: line"},
		{"a translated LOB heading: its rows are not table rows",
			head + "RECORD BLOCK SUMMARY\nRECORD BLOCK SUMMARY FOR AREA \"D\": 7\n----------\n" + row +
				"LOB-ZUSAMMENFASSUNG FÜR BEREICH L: 9\nPUB.a:4\n    f:12  3 1.5K 512B 512B 512B\nTotals: 1 1.0B 1 1 1 1 1.0 1.0\n",
			`r:12: "PUB.a:4" (line 11) is not followed by its numbers`},
		{"a translated area whose rows miss a number: the totals do not add up",
			head + "ZUSAMMENFASSUNG FÜR BEREICH \"D\": 7\n----------\nPUB.a 1 1.0B 1 1 1 1 1.0\n" +
				"ZUSAMMENFASSUNG FÜR BEREICH \"E\": 8\n----------\n" + row + "Summen: 2 2.0B 1 1 1 2 1.0 1.0\n1 RM block(s)\n",
			"r:12: Totals: says 2 records, the table rows in the report add up to 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseAnalysis(strings.NewReader(tt.input), "r")
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}
