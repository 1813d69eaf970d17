package run

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/oedl/oedl/internal/hosts"
	"github.com/oedl/oedl/internal/journal"
)

// A resume across hosts takes the hosts' places it began with (safety
// trial 11): the journal compared --source and --target by path only, so
// a hosts file edited between two invocations (the target moved to
// another machine with a database at the same path, roles swapped, a
// work directory moved) had the resume work where no preflight of its
// first invocation proved anything. Now exit 2 naming the place; the
// env and the hosts' figures may change.
func TestResumeWithOtherHostsPlacesIsBadUsage(t *testing.T) {
	began := parseHosts(t, threeHostsFile)
	first := journal.Record{Job: journal.RunJob, State: journal.Started, PlanDir: "/plan", HostsFile: "/h/hosts.yaml",
		HostsPlaces: (&Config{Hosts: began}).hostsPlaces()}
	swapped := strings.NewReplacer("role: source", "role: target", "role: target", "role: source").Replace(threeHostsFile)
	for _, tc := range []struct {
		name  string
		hosts string // "" for no --hosts
		first journal.Record
		want  string // "" when the resume may go on
	}{
		{name: "the same file", hosts: threeHostsFile, first: first},
		{name: "its env and figures changed", hosts: strings.Replace(threeHostsFile, "PROMSGS: /dlc-dr/promsgs", "PROSTARTUP: /dlc-dr/startup.pf", 1) + "    cores: 8\n", first: first},
		{name: "a replica taken out", hosts: withoutReplica(), first: first},
		{name: "the target on the source's machine", hosts: strings.Replace(threeHostsFile, "ssh: new1", "ssh: prod1", 1), first: first,
			want: "now new: role target, ssh prod1, db /newdb/prod"},
		{name: "source and target swapped", hosts: swapped, first: first, want: "began with prod: role source, ssh prod1"},
		{name: "a work directory moved", hosts: strings.Replace(threeHostsFile, "work: /w-prod", "work: /home/dba", 1), first: first,
			want: "work /home/dba"},
		{name: "--hosts dropped", first: first, want: "begun across hosts (--hosts /h/hosts.yaml): give --hosts"},
		{name: "--hosts added to a run on one machine", hosts: threeHostsFile, first: journal.Record{PlanDir: "/plan"}, want: "begun on this machine, without --hosts"},
		{name: "an older journal records no places", hosts: swapped, first: journal.Record{HostsFile: "/h/hosts.yaml"}},
		{name: "an older journal records no hosts file", hosts: threeHostsFile, first: journal.Record{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &Config{Work: "/w"}
			if tc.hosts != "" {
				c.Hosts = parseHosts(t, tc.hosts)
			}
			err := c.adoptSettings(&journal.Replayed{Runs: []journal.Record{tc.first}}, "")
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			var ue *UsageError
			require.ErrorAs(t, err, &ue, "exit 2")
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}

func parseHosts(t *testing.T, text string) *hosts.File {
	t.Helper()
	hf, err := hosts.Parse("hosts.yaml", []byte(text))
	require.NoError(t, err)
	return hf
}

// withoutReplica is threeHostsFile without its replica, as docs/hosts.md
// tells the DBA to resume when a replica was refused.
func withoutReplica() string {
	start := strings.Index(threeHostsFile, "  dr:\n")
	end := strings.Index(threeHostsFile, "  new:\n")
	return threeHostsFile[:start] + threeHostsFile[end:]
}
