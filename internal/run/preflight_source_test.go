package run

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The preflight proves the source free with dump_lasttask.p's single-user
// session and asks proutil -C holder only when that session is refused:
// a free source costs one utility call, not two, before the first dump;
// a held one gets the holder's answers as before.
func TestSourceProvenFreeByTheLastTaskRead(t *testing.T) {
	tests := []struct {
		name         string
		served, held bool
		online       bool
		wantHolder   int    // proutil SOURCE -C holder calls before the first dump
		wantTaskRead int    // dump_lasttask.p sessions on the source
		wantErr      string // "" when the run goes on
	}{
		{name: "free: the read proves it, no holder", wantTaskRead: 1},
		{name: "held single-user: refused (263), the holder says so", held: true, wantHolder: 1, wantTaskRead: 1, wantErr: "(263)"},
		{name: "served by someone else: refused, the holder says so", served: true, wantHolder: 1, wantTaskRead: 1, wantErr: "--online-source"},
		// The second holder is the serve job's, after proserve is refused by
		// the DBA's broker (serveJob), as before.
		{name: "served, --online-source: dumped through the broker, no id read", served: true, online: true, wantHolder: 2, wantTaskRead: 1},
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
			holders, reads := 0, 0
			for _, c := range oe.calls {
				if strings.HasPrefix(c, "proutil "+cfg.Source+" -C dump ") {
					break // the preflight is over
				}
				if c == "proutil "+cfg.Source+" -C holder" {
					holders++
				}
				if strings.HasPrefix(c, "_progres -b -db "+cfg.Source+" -1 ") && strings.Contains(c, ablDumpLastTask) {
					reads++
				}
			}
			assert.Equal(t, tt.wantHolder, holders)
			assert.Equal(t, tt.wantTaskRead, reads)
		})
	}
}
