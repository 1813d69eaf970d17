package schedule

// SectionLoad returns the load of one .bd section of a threaded dump
// (section 1 is table.bd, N is table.bdN), built like the loads Build puts
// in the graph up front: after the target is ready (and after every dump
// when staged), in the table's target area, before LoadBarrier. Run and
// estimate both add it through Outcome.Add as the section lands, so both
// extend the graph in the same way.
//
// One machine only: on several, SectionJobs also moves the section.
func (b *Built) SectionLoad(dump *Job, section int, records, bytes int64) *Job {
	js := b.SectionJobs(dump, section, records, bytes)
	return js[len(js)-1]
}

// SectionJobs returns what one .bd section of a threaded dump needs, in
// the order to add them: its move to the target's machine when the dump
// ran on another one, then its load (which waits for the move).
func (b *Built) SectionJobs(dump *Job, section int, records, bytes int64) []*Job {
	deps := []string{b.targetReady}
	if b.dumpsDone != "" {
		deps = append(deps, b.dumpsDone)
	}
	var out []*Job
	if b.hosts.moves(dump.Host) {
		// No dependency: it is added when its section has landed, while
		// the dump goes on writing the others.
		mv := &Job{ID: MoveID(dump.Table, section), Kind: KindMove, Table: dump.Table, Section: section, Host: dump.Host,
			Records: records, Bytes: bytes, Slot: SlotMove}
		out = append(out, mv)
		deps = append(deps, mv.ID)
	}
	j := &Job{ID: LoadID(dump.Table, section), Kind: KindLoad, Table: dump.Table, Area: b.areas[dump.Table],
		Section: section, Records: records, Bytes: bytes, Deps: deps, Before: []string{b.LoadBarrier}, Slot: SlotLoad,
		Host: b.hosts.hostOf(KindLoad, DBTarget)}
	j.Slot = HostSlot(j.Slot, j.Host)
	out = append(out, j)
	for _, x := range out {
		if b.cost != nil {
			x.Cost = b.cost(x)
		}
	}
	return out
}
