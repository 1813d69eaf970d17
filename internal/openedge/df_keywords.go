package openedge

import (
	"bytes"
	"strings"
)

// dfKeywords are the option keywords of the .df grammar (DumpFileGrammar.g4,
// openedge-formats.md §6.2). They matter only when several options share a
// line: a keyword found after the first word of a line starts a new option.
// Words that are arguments (ASCENDING, PROCEDURE, CRC, yes, ?, 100M, ...)
// are deliberately absent.
var dfKeywords = func() map[string]string {
	m := map[string]string{}
	for _, k := range strings.Fields(`
		AREA NO-DEFAULT-AREA MULTITENANT
		CAN-CREATE CAN-DELETE CAN-READ CAN-WRITE CAN-DUMP CAN-LOAD
		LABEL LABEL-SA DESCRIPTION VALEXP VALMSG VALMSG-SA FROZEN HIDDEN DUMP-NAME
		CATEGORY IS-PARTITIONED BUFFER-POOL TABLE-TRIGGER FIELD-TRIGGER ENCRYPTION CIPHER-NAME
		FORMAT FORMAT-SA INITIAL INITIAL-SA POSITION MAX-WIDTH SQL-WIDTH
		LOB-AREA LOB-BYTES LOB-SIZE CLOB-CODEPAGE CLOB-COLLATION CLOB-TYPE
		VIEW-AS COLUMN-LABEL COLUMN-LABEL-SA HELP HELP-SA
		EXTENT DECIMALS LENGTH ORDER MANDATORY NULL-ALLOWED CASE-SENSITIVE NOT-CASE-SENSITIVE
		IS-LOCAL UNIQUE INACTIVE PRIMARY WORD INDEX-NUM RECID-INDEX INDEX-FIELD
		INCREMENT CYCLE-ON-LIMIT MIN-VAL MAX-VAL`) {
		m[k] = k // interned: looking a word up allocates nothing
	}
	return m
}()

// dfKeywordPrefixes cover the numbered and foreign-schema families
// (FOREIGN-NAME, FILE-MISC11, FIELD-MISC24, SEQ-MISC3, DSRVR-PRECISION, ...).
var dfKeywordPrefixes = []string{"FOREIGN-", "FILE-MISC", "FIELD-MISC", "SEQ-MISC", "DSRVR-"}

// dfKeyword returns the upper-case keyword a word spells and whether it
// is one; it allocates only for a word written in lower case.
func dfKeyword(word []byte) (string, bool) {
	if kw, ok := dfKeywords[string(word)]; ok {
		return kw, true
	}
	if bytes.ContainsFunc(word, func(r rune) bool { return 'a' <= r && r <= 'z' }) {
		word = bytes.ToUpper(word)
		if kw, ok := dfKeywords[string(word)]; ok {
			return kw, true
		}
	}
	for _, p := range dfKeywordPrefixes {
		if bytes.HasPrefix(word, []byte(p)) {
			return string(word), true
		}
	}
	return "", false
}
