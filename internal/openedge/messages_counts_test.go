package openedge

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestCountsInDigitGroups: a record count is read as the utility prints it,
// plain digits in every language seen (real Portuguese: eight-digit counts
// without separators, testdata/messages/README.md). A count in digit groups
// is read whole: read by its first group, "1 234 567" was 1 record, a load
// of a million records reported as one.
func TestCountsInDigitGroups(t *testing.T) {
	const loadTail = "Load binario completo. (6256)\n"
	const dumpTail = "Dump binario completo. (6254)\n"
	tests := []struct {
		name    string
		parse   func(string) (int64, error)
		out     string
		want    int64
		wantErr string
	}{
		{"pt load, plain eight digits", load, "Carregados 26153086 registros. (15167)\n" + loadTail, 26153086, ""},
		{"de load, plain", load, "31072458 Datensätze geladen. (15167)\n" + loadTail, 31072458, ""},
		{"pt load, blank groups", load, "Carregados 1 234 567 registros. (15167)\n" + loadTail, 1234567, ""},
		{"fr load, no-break space groups", load, "1\u00a0234\u00a0567 enregistrements chargés. (15167)\n" + loadTail, 1234567, ""},
		{"pt load, dot groups", load, "Carregados 1.234.567 registros. (15167)\n" + loadTail, 1234567, ""},
		{"en load, comma groups", load, "Loaded 1,234,567 records. (15167)\n" + loadTail, 1234567, ""},
		{"de dump, dot groups", dump, "12.345 Datensätze entladen. (13932)\n" + dumpTail, 12345, ""},
		{"pt dump, blank groups", dump, "12 345 registros despejados. (13932)\n" + dumpTail, 12345, ""},
		{"pt dump, plain", dump, "12345 registros despejados. (13932)\n" + dumpTail, 12345, ""},
		{"pt bracket, blank groups", dump, "Thread 1 despejou\n1 234 registros descarregados para o intervalo 1. (17816)\n1234 registros despejados. (13932)\n" + dumpTail, 1234, ""},
		{"a time is no group", load, "Loaded 0.413 s 203 records. (15167)\n" + loadTail, 203, ""},
		{"count then a time", load, "Loaded 203 records in 0.413 s. (15167)\n" + loadTail, 203, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.parse(tt.out)
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func load(out string) (int64, error) {
	r, err := ParseLoadOutput(out)
	return r.Records, err
}

func dump(out string) (int64, error) {
	r, err := ParseDumpOutput(out)
	return r.Records, err
}
