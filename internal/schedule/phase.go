package schedule

// Phase is a stage of the outage as a DBA tells it to a manager. The jobs
// of a run overlap (the source's tabanalys runs beside the first dumps),
// so a run is in the latest phase any started job belongs to: the `phase`
// events, the screen's phase strip and the report's timings all use this
// one mapping.
type Phase string

const (
	PhasePreflight Phase = "preflight"
	PhaseDumpLoad  Phase = "dump+load" // from the first setup job to the last load
	PhaseIdxbuild  Phase = "idxbuild"
	PhaseVerify    Phase = "verify"
	PhasePost      Phase = "post"
)

// Phases are the phases in the order a run goes through them.
var Phases = []Phase{PhasePreflight, PhaseDumpLoad, PhaseIdxbuild, PhaseVerify, PhasePost}

// PhaseOf is the phase a job of kind k belongs to; "" for the brokers,
// which start and stop inside other phases.
func PhaseOf(k Kind) Phase {
	switch k {
	case KindPreflight:
		return PhasePreflight
	case KindIdxbuild:
		return PhaseIdxbuild
	case KindAnalyzeTarget, KindVerify:
		return PhaseVerify
	case KindPost:
		return PhasePost
	case KindServe, KindShutdown, KindBarrier:
		return ""
	}
	return PhaseDumpLoad
}

// Rank is p's position in Phases (-1 for none).
func (p Phase) Rank() int {
	for i, q := range Phases {
		if q == p {
			return i
		}
	}
	return -1
}
