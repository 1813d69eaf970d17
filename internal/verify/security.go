package verify

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/oedl/oedl/internal/openedge"
)

// SecurityItem is the verdict on one user, grant or view that differs.
type SecurityItem struct {
	Kind   string `json:"kind"` // "user", "grant", "view"
	Name   string `json:"name"` // the user id, "grantee ON object", OWNER.VIEW
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
	Status Status `json:"status"`
}

// SecurityResult compares the users, SQL grants and views of the source
// with the target's, read back after the load.
type SecurityResult struct {
	OK     bool           `json:"ok"`
	Before string         `json:"before"` // "4 users, 5 grants, 1 view"
	After  string         `json:"after"`
	Users  int            `json:"users"` // before
	Grants int            `json:"grants"`
	Views  int            `json:"views"`
	Bad    []SecurityItem `json:"mismatches,omitempty"`
}

// CompareSecurity matches users by id (name and password hash must be
// the same), grants by grantee and object (the same privileges), views by
// owner and name (the same text). Keys are compared as written, not
// folded: the target was loaded from the source's own files, so a key in
// another letter case is a change the DBA should see.
func CompareSecurity(before, after openedge.Security) *SecurityResult {
	r := &SecurityResult{Before: before.String(), After: after.String(),
		Users: len(before.Users), Grants: len(before.Grants), Views: len(before.Views)}
	r.Bad = append(r.Bad, compareKeyed("user", before.Users, after.Users, func(u openedge.User) string { return u.ID },
		func(u openedge.User) string { return u.Name + " / password hash " + u.Password })...)
	r.Bad = append(r.Bad, compareKeyed("grant", before.Grants, after.Grants, openedge.Grant.Key,
		func(g openedge.Grant) string { return g.Privileges })...)
	r.Bad = append(r.Bad, compareKeyed("view", before.Views, after.Views, openedge.View.Key,
		func(v openedge.View) string { return v.Text })...)
	r.OK = len(r.Bad) == 0
	return r
}

func compareKeyed[T any](kind string, before, after []T, key, value func(T) string) []SecurityItem {
	am := map[string]string{}
	for _, a := range after {
		am[key(a)] = value(a)
	}
	var bad []SecurityItem
	seen := map[string]bool{}
	for _, b := range before {
		k := key(b)
		seen[k] = true
		a, ok := am[k]
		switch {
		case !ok:
			bad = append(bad, SecurityItem{Kind: kind, Name: k, Before: value(b), Status: Missing})
		case a != value(b):
			bad = append(bad, SecurityItem{Kind: kind, Name: k, Before: value(b), After: a, Status: Mismatch})
		}
	}
	for _, a := range after {
		if k := key(a); !seen[k] {
			bad = append(bad, SecurityItem{Kind: kind, Name: k, After: value(a), Status: Extra})
		}
	}
	sort.SliceStable(bad, func(i, j int) bool { return bad[i].Name < bad[j].Name })
	return bad
}

// Err names every user, grant and view that differs, or is nil.
func (s *SecurityResult) Err() error {
	if s == nil || s.OK {
		return nil
	}
	parts := make([]string, 0, len(s.Bad))
	for _, b := range s.Bad {
		switch b.Status {
		case Missing:
			parts = append(parts, fmt.Sprintf("%s %s missing after", b.Kind, b.Name))
		case Extra:
			parts = append(parts, fmt.Sprintf("%s %s not in the source", b.Kind, b.Name))
		default:
			parts = append(parts, fmt.Sprintf("%s %s differs (%q -> %q)", b.Kind, b.Name, b.Before, b.After))
		}
	}
	return fmt.Errorf("%d user(s), grant(s) or view(s) do not match: %s", len(s.Bad), strings.Join(parts, "; "))
}

// AddSecurity puts the comparison of users, grants and views into the
// verdict: a difference fails it as a table short would.
func (r *Result) AddSecurity(s *SecurityResult) {
	r.Security = s
	if s != nil && !s.OK {
		r.OK = false
	}
}

// writeSecurityText prints the security line and what differs.
func writeSecurityText(w io.Writer, s *SecurityResult) error {
	if s == nil {
		return nil
	}
	verdict := "MATCH"
	if !s.OK {
		verdict = "MISMATCH"
	}
	if _, err := fmt.Fprintf(w, "security: %s  %s before, %s after\n", verdict, s.Before, s.After); err != nil {
		return err
	}
	if s.OK {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "kind\tname\tstatus\tbefore\tafter\n")
	for _, b := range s.Bad {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%q\t%q\n", b.Kind, b.Name, b.Status, b.Before, b.After)
	}
	return tw.Flush()
}
