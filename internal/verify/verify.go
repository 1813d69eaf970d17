package verify

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"

	"github.com/oedl/oedl/internal/openedge"
	"github.com/oedl/oedl/internal/units"
)

// Status of one table.
type Status string

const (
	Match    Status = "match"
	Mismatch Status = "mismatch" // both sides have it, counts differ
	Missing  Status = "missing"  // in before, not in after: the table was lost
	Extra    Status = "extra"    // in after, not in before
)

// Count is one (table, records) line of a side.
type Count struct {
	Table   string `json:"table"`
	Records int64  `json:"records"`
}

// Side is one report reduced to its counts.
type Side struct {
	File     string  `json:"file,omitempty"`
	Database string  `json:"database,omitempty"`
	Tables   []Count `json:"tables"`
	Records  int64   `json:"records"`
	Ignored  int     `json:"ignored"` // meta-schema / SQL catalog rows left out
	// Checksum is the SHA-256 of List(), as sha256sum prints it for the
	// counts file.
	Checksum string `json:"sha256"`
}

// Row is the verdict on one table.
type Row struct {
	Table  string `json:"table"`
	Before int64  `json:"before"`
	After  int64  `json:"after"`
	Status Status `json:"status"`
}

// Result is the whole comparison, as written to verify.json.
type Result struct {
	V      int    `json:"v"`
	OK     bool   `json:"ok"`
	Before Side   `json:"before"`
	After  Side   `json:"after"`
	Rows   []Row  `json:"tables"`
	Bad    []Row  `json:"mismatches,omitempty"` // the rows that are not Match
	Note   string `json:"note,omitempty"`
	// Security is the users, SQL grants and views (nil when not compared:
	// oedl verify on two reports).
	Security *SecurityResult `json:"security,omitempty"`
	// Sequences is the sequence values (nil when not compared: oedl
	// verify on two reports).
	Sequences *SequenceResult `json:"sequences,omitempty"`
}

// ResultVersion is the "v" field of verify.json.
const ResultVersion = 1

// NewSide reduces a parsed report to its application-table counts.
func NewSide(a *openedge.Analysis, file string) Side {
	s := Side{File: file, Database: a.Database}
	byKey := map[string]int{}
	for _, t := range a.Tables {
		if ignored(t) {
			s.Ignored++
			continue
		}
		name := t.QualifiedName()
		if t.Partition != "" {
			name += "." + t.Partition
		}
		if i, ok := byKey[key(name)]; ok {
			// The same table twice (a report listing a table under two
			// headings) counts once, with all its records.
			s.Tables[i].Records += t.Records
		} else {
			byKey[key(name)] = len(s.Tables)
			s.Tables = append(s.Tables, Count{Table: name, Records: t.Records})
		}
		s.Records += t.Records
	}
	sort.Slice(s.Tables, func(i, j int) bool {
		ki, kj := key(s.Tables[i].Table), key(s.Tables[j].Table)
		if ki != kj {
			return ki < kj
		}
		return s.Tables[i].Table < s.Tables[j].Table
	})
	sum := sha256.Sum256([]byte(s.List()))
	s.Checksum = hex.EncodeToString(sum[:])
	return s
}

// List renders the side as "owner.table records" lines sorted by table: the
// file a DBA would diff or checksum.
func (s Side) List() string {
	var b strings.Builder
	for _, c := range s.Tables {
		fmt.Fprintf(&b, "%s %d\n", c.Table, c.Records)
	}
	return b.String()
}

// ShortSum is the first 12 hex digits of the checksum, for a terminal line.
func (s Side) ShortSum() string {
	if len(s.Checksum) < 12 {
		return s.Checksum
	}
	return s.Checksum[:12]
}

// Compare matches the two sides table by table. OpenEdge table names are
// case-insensitive, so PUB.Customer and PUB.customer are the same table.
func Compare(before, after Side) *Result {
	r := &Result{V: ResultVersion, Before: before, After: after}
	am := map[string]Count{}
	for _, c := range after.Tables {
		am[key(c.Table)] = c
	}
	seen := map[string]bool{}
	for _, b := range before.Tables {
		k := key(b.Table)
		seen[k] = true
		a, ok := am[k]
		row := Row{Table: b.Table, Before: b.Records, After: a.Records, Status: Match}
		switch {
		case !ok:
			row.Status, row.After = Missing, 0
		case a.Records != b.Records:
			row.Status = Mismatch
		}
		r.Rows = append(r.Rows, row)
	}
	for _, a := range after.Tables {
		if !seen[key(a.Table)] {
			r.Rows = append(r.Rows, Row{Table: a.Table, After: a.Records, Status: Extra})
		}
	}
	sort.SliceStable(r.Rows, func(i, j int) bool { return key(r.Rows[i].Table) < key(r.Rows[j].Table) })
	for _, row := range r.Rows {
		if row.Status != Match {
			r.Bad = append(r.Bad, row)
		}
	}
	r.OK = len(r.Bad) == 0
	if r.OK && before.Checksum != after.Checksum {
		// The lists keep names as each report prints them, so the only
		// way to match row by row with different checksums is letter
		// case; say so, since the checksums are what people read.
		r.Note = "every table matches; the checksums differ only because table names differ in letter case"
	}
	return r
}

// Err returns nil when every table matches, or an error naming the tables
// that do not.
func (r *Result) Err() error {
	if r.OK {
		return nil
	}
	secErr := r.Security.Err()
	if len(r.Bad) == 0 && secErr != nil {
		return secErr
	}
	if seqErr := r.Sequences.Err(); len(r.Bad) == 0 && seqErr != nil {
		return seqErr
	}
	if len(r.Bad) == 0 {
		return fmt.Errorf("verify failed: %s", r.Note)
	}
	parts := make([]string, 0, len(r.Bad))
	for _, b := range r.Bad {
		switch b.Status {
		case Missing:
			parts = append(parts, fmt.Sprintf("%s missing after (had %s records)", b.Table, units.Thousands(b.Before)))
		case Extra:
			parts = append(parts, fmt.Sprintf("%s not in the source (%s records)", b.Table, units.Thousands(b.After)))
		default:
			parts = append(parts, fmt.Sprintf("%s %d -> %d", b.Table, b.Before, b.After))
		}
	}
	if secErr != nil {
		return fmt.Errorf("%d table(s) do not match: %s; %w", len(r.Bad), strings.Join(parts, "; "), secErr)
	}
	return fmt.Errorf("%d table(s) do not match: %s", len(r.Bad), strings.Join(parts, "; "))
}

func key(table string) string { return strings.ToLower(table) }

func ignored(t openedge.TableStat) bool {
	return strings.HasPrefix(t.Name, "_") || strings.EqualFold(t.Owner, "SYSPROGRESS")
}
