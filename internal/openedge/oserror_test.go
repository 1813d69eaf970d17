package openedge

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestNoSpaceByNumber: a full disk is told by the message number and the
// errno's digits, never the words: (6091) always, (290) and (43) when
// their errno is 28, in English and in the shapes of the Portuguese and
// German message files (the words translated, the numbers where the
// template puts them). Layouts: Progress KB 18401 and 12646 (290), KB
// P22954 and P98311 (6091), KB 17416 (43).
func TestNoSpaceByNumber(t *testing.T) {
	for _, tc := range []struct {
		name, out string
		want      bool
	}{
		{"(290) errno 28, en", "SYSTEM ERROR: I/O error 28 in bkioWrite, ret -1, file 7(/db/t_8.d1), addr 40960. (290)\n", true},
		{"(290) errno 28, pt", "ERRO DE SISTEMA: erro de E/S 28 em bkioWrite, ret -1, arquivo 7(/db/t_8.d1), end 40960. (290)\n", true},
		{"(290) errno 28, de", "SYSTEMFEHLER: E/A-Fehler 28 in bkioWrite, ret -1, Datei 7(/db/t_8.d1), Adr 40960. (290)\n", true},
		{"(290) errno 5 is not a full disk", "SYSTEM ERROR: I/O error 5 in bkioWrite, ret -1, file 7(/db/t28.d1), addr 28. (290)\n", false},
		{"(6091), en", "bkioWrite:Insufficient disk space during write, fd 9, len 16384, offset 2147482624, file /db/t.d3. (6091)\n", true},
		{"(6091), de", "bkioWrite:Nicht genug Plattenplatz bei write, fd 9, len 16384, offset 2147482624, Datei /db/t.d3. (6091)\n", true},
		{"(43) errno 28, pt", "** Impossível localizar ou abrir o arquivo /w/x.srt, errno = 28. (43)\n", true},
		{"(43) errno 2 with 28 in its path", "** Cannot find or open file /db28/x28.d1, errno = 2. (43)\n", false},
		{"a count of 28", "Dumped 28 records. (13932)\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, ok := NoSpace(tc.out)
			assert.Equal(t, tc.want, ok, "%+v", m)
		})
	}
}

// TestRefusalByNumber: the messages that say another attempt fails the
// same way, by number and errno, in each language's shape; a database in
// use, a user limit and a (43) of a transient errno are not refusals.
func TestRefusalByNumber(t *testing.T) {
	for _, tc := range []struct {
		name, out string
		want      int
	}{
		{"(43) permission denied, en", "** Cannot find or open file /db/src.db, errno = 13. (43)\n", 43},
		{"(43) permission denied, pt", "** Impossível localizar ou abrir o arquivo /db/src.db, errno = 13. (43)\n", 43},
		{"(43) read-only, de", "** Datei /db/src.lk kann nicht gefunden oder geöffnet werden, errno = 30. (43)\n", 43},
		{"(43) missing", "** Cannot find or open file /w/dump/x.bd, errno = 2. (43)\n", 43},
		{"(43) too many open files", "** Cannot find or open file /w/dump/x.bd, errno = 24. (43)\n", 0},
		{"(43) interrupted", "** Cannot find or open file /w/dump/x.bd, errno = 4. (43)\n", 0},
		{"(44) another version", "** Database has the wrong version number. (db: 8376, pro: 8365). (44)\n", 44},
		{"(509)(510) cannot repair", "** The last session was run with the no integrity (-i) parameter. (509)\n** Your database cannot be repaired. You must restore a backup copy. (510)\n", 509},
		{"(1525) after-imaging", "You cannot perform this operation with after-imaging or 2phase enabled (1525)\n", 1525},
		{"(263) in use", "** The database /db/t is in use in single-user mode. (263)\n", 0},
		{"(748) user limit", "** The server or the system has no more resources. Try a larger -n. (748)\n", 0},
		{"unnumbered", "** something went wrong (oesim)\n", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, ok := Refusal(tc.out)
			assert.Equal(t, tc.want != 0, ok)
			assert.Equal(t, tc.want, m.Num)
		})
	}
}
