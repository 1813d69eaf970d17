// Package fault reads OESIM_FAULTS, the rules by which oesim's utilities
// misbehave on purpose: crash after N records, exit with a code, hang,
// write a corrupt or truncated .bd, run out of disk, start slowly.
//
// oedl has to survive what real migrations do to it — a load killed half
// way, a dump that hangs, a disk that fills up — and it can only be tested
// for that if the utilities can be made to fail on demand, in a chosen
// table, a chosen number of times. The syntax is in docs/oesim-faults.md:
//
//	OESIM_FAULTS='load:PUB.customer:crash-after=1000,once; dump:*:exit=3; idxbuild:hang'
//
// A rule is operation[:table]:kind[=arg][,once|,times=N]. Rules are tried
// in order; the first that matches the utility, qualifier and table is the
// one that applies.
//
// A rule limited to N firings counts them in a state directory shared by
// every oesim process ($OESIM_STATE, else $DLC/.oesim): firing k creates the
// file fault-<rule>-<k> with O_CREATE|O_EXCL, which succeeds in exactly one
// process. So a "once" crash hits the first load only and oedl's retry
// succeeds, which is the behaviour a retry policy is tested against.
package fault
