package run

import (
	"context"
	"strings"
	"time"

	"github.com/oedl/oedl/internal/execx"
	"github.com/oedl/oedl/internal/openedge"
)

// checkStartupPFOn is checkStartupPF on the hosts whose _progres sessions
// oedl starts (the source's: dump_df.p, the last task, sequences and
// users; the target's: load_df.p and the loads of sequences and users):
// each reads its own host's startup file, named by $PROSTARTUP as that
// host's session has it (its login environment, then the hosts file's
// env, as every utility there gets it) or its $DLC/startup.pf, and
// connects a -db there first (safety trial 8). A relative $PROSTARTUP is
// refused (openedge.NoStartupDatabase): the host's utilities run in
// several directories (the work directory, the target's), and oedl has
// no directory of the DBA's there to make it absolute from, as it does on
// one machine. Nothing is written.
func (c *Config) checkStartupPFOn(ctx context.Context) error {
	l := c.hostLayout()
	hosts := []string{l.Source}
	if l.Target != l.Source {
		hosts = append(hosts, l.Target)
	}
	for _, host := range hosts {
		hc, m := c.at(host), c.machine(host)
		var out strings.Builder
		res, err := m.runner.Run(ctx, execx.Cmd{Path: "sh", Args: []string{"-c", `printf %s "${PROSTARTUP-}"`},
			Dir: m.work, Env: hc.env(), Stdout: &out, Timeout: time.Minute})
		if err != nil {
			return precondition("host %s: its $PROSTARTUP could not be read, so what its ABL sessions connect first cannot be told: %v %s", host, err, strings.TrimSpace(res.Output))
		}
		read := func(p string) ([]byte, error) { return m.fs.ReadFile(ctx, p) }
		if err := openedge.NoStartupDatabase(out.String(), hc.DLC, read); err != nil {
			return precondition("host %s: %v", host, err)
		}
	}
	return nil
}
