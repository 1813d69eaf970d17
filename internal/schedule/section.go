package schedule

// SectionLoad returns the load of one .bd section of a threaded dump
// (section 1 is table.bd, N is table.bdN), built like the loads Build puts
// in the graph up front: after the target is ready (and after every dump
// when staged), in the table's target area, before LoadBarrier. Run and
// estimate both add it through Outcome.Add as the section lands, so both
// extend the graph in the same way.
func (b *Built) SectionLoad(dump *Job, section int, records, bytes int64) *Job {
	deps := []string{b.targetReady}
	if b.dumpsDone != "" {
		deps = append(deps, b.dumpsDone)
	}
	j := &Job{ID: LoadID(dump.Table, section), Kind: KindLoad, Table: dump.Table, Area: b.areas[dump.Table],
		Section: section, Records: records, Bytes: bytes, Deps: deps, Before: []string{b.LoadBarrier}, Slot: SlotLoad}
	if b.cost != nil {
		j.Cost = b.cost(j)
	}
	return j
}
