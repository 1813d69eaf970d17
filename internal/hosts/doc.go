// Package hosts is the hosts file: where the source, its replicas and the
// target of a migration live, and how oedl reaches each of them (docs/hosts.md).
//
//	ssh:
//	  config: /home/dba/.ssh/oedl_config   # ssh -F; default: the user's own
//	hosts:
//	  prod:                                # a name of the DBA's choosing
//	    role: source                       # source, replica or target
//	    ssh: dba@prod1                     # an ssh destination; none: this machine
//	    db: /db/prod/prod
//	    dlc: /usr/dlc
//	    work: /dl/work                     # oedl's directory on that host
//	  dr:
//	    role: replica
//	    ssh: dba@dr1
//	    db: /db/prod/prod
//	    dlc: /usr/dlc
//	    work: /dl/work
//	  new:
//	    role: target
//	    ssh: dba@new1
//	    db: /newdb/prod
//	    dlc: /usr/dlc
//	    work: /dl/work
//
// Decisions:
//
//   - YAML, as the configuration file is (docs/config.md): one format for a
//     DBA to learn, read through yaml.Node so that every problem names its
//     file and line, and every problem is reported at once (exit 2): a
//     misspelt key must not be ignored on the night of the outage.
//   - One host is the default and needs no file (Single): `oedl run
//     --source --target --work` is a hosts file of one machine.
//   - A host's name, not its ssh destination, is what the journal, the
//     logs, the job IDs and the slots carry: the names stay readable and a
//     DBA may point a name at another address between a run and its
//     resume (a replica's address after a failover). Two hosts with the
//     same ssh destination are one machine and share one connection.
//   - An ssh destination that begins with '-' is refused: ssh would read it
//     as an option (-oProxyCommand=...). Nothing in the file reaches a
//     shell: destinations go to ssh as one argv word, paths and
//     environment are quoted for the remote shell word by word.
//   - The hardware keys (cores, disk-mbps, iops, link-mbps, latency-ms,
//     call-ms)
//     are for `oedl estimate`; a run does not need them.
package hosts
