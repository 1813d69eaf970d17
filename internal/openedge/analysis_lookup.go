package openedge

import "strings"

// FindTable returns the rows of one table, case-insensitively as ABL names
// are: the table itself, or each of its partitions and tenants when it is
// partitioned or multi-tenant. owner "" means PUB.
func (a *Analysis) FindTable(owner, name string) []TableStat {
	if owner == "" {
		owner = "PUB"
	}
	var rows []TableStat
	for _, t := range a.Tables {
		tOwner := t.Owner
		if tOwner == "" {
			tOwner = "PUB"
		}
		if strings.EqualFold(t.Name, name) && strings.EqualFold(tOwner, owner) {
			rows = append(rows, t)
		}
	}
	return rows
}

// RecordCount is the number of records of a table summed over its
// partitions and tenants, and whether the report has the table at all.
func (a *Analysis) RecordCount(owner, name string) (int64, bool) {
	rows := a.FindTable(owner, name)
	var n int64
	for _, t := range rows {
		n += t.Records
	}
	return n, len(rows) > 0
}
