package run

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The preflight proves the source free with one single-user session
// (dump_lasttask_df.p: the last transaction id and the .df) and asks
// proutil -C holder only when that session is refused: a free source
// costs one utility call before the first dump where it cost three (the
// holder, dump_lasttask.p, dump_df.p); a held one gets the holder's
// answers as before.
func TestSourceProvenFreeByTheLastTaskRead(t *testing.T) {
	tests := []struct {
		name         string
		served, held bool
		online       bool
		wantHolder   int    // proutil SOURCE -C holder calls before the first dump
		wantTaskRead int    // dump_lasttask_df.p sessions on the source
		wantDumpDF   int    // the preflight's prodict/dump_df.p sessions on the source
		wantErr      string // "" when the run goes on
	}{
		{name: "free: the read proves it, no holder, no second session", wantTaskRead: 1},
		{name: "held single-user: refused (263), the holder says so", held: true, wantHolder: 1, wantTaskRead: 1, wantErr: "(263)"},
		{name: "served by someone else: refused, the holder says so", served: true, wantHolder: 1, wantTaskRead: 1, wantErr: "--online-source"},
		// The second holder is the serve job's, after proserve is refused by
		// the DBA's broker (serveJob), as before; the .df is dumped through
		// that broker, and no transaction id is read.
		{name: "served, --online-source: the .df through the broker", served: true, online: true, wantHolder: 2, wantTaskRead: 1, wantDumpDF: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := fakeSetup(t, testTables...)
			oe := newFakeOE(cfg.Plan)
			oe.served[cfg.Source], oe.single[cfg.Source] = tt.served, tt.held
			cfg.Runner, cfg.DumpJobs, cfg.LoadJobs, cfg.OnlineSource = oe, 2, 2, tt.online
			_, err := Run(context.Background(), cfg)
			if tt.wantErr != "" {
				var pe *PreconditionError
				require.ErrorAs(t, err, &pe)
				assert.Contains(t, err.Error(), tt.wantErr)
			} else {
				require.NoError(t, err)
			}
			holders, reads, dfs := 0, 0, 0
		calls:
			for _, c := range oe.calls {
				switch {
				case strings.HasPrefix(c, "proutil "+cfg.Source+" -C dump "):
					break calls // the preflight is over
				case c == "proutil "+cfg.Source+" -C holder":
					holders++
				case strings.HasPrefix(c, "_progres -b -db "+cfg.Source+" -1 ") && strings.Contains(c, ablDumpLastTaskDF):
					reads++
				case strings.HasPrefix(c, "_progres -b -db "+cfg.Source+" ") && strings.Contains(c, "prodict/dump_df.p") &&
					!strings.Contains(c, cfg.Work): // not the dump-df job's, into WORK
					dfs++
				}
			}
			assert.Equal(t, tt.wantHolder, holders, "holder")
			assert.Equal(t, tt.wantTaskRead, reads, "dump_lasttask_df.p")
			assert.Equal(t, tt.wantDumpDF, dfs, "dump_df.p")
		})
	}
}
