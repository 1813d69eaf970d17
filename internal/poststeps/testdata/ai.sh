#!/bin/sh
# Written by oedl run: the steps after the load of /db/new/prod that oedl does not take itself.
# Read it, set the variables it names, and run it; each step says why it applies.
set -e
: "${OEDL_BACKUP:?set OEDL_BACKUP (after-imaging)}"
: "${OEDL_SQL_PORT:?set OEDL_SQL_PORT (statistics)}"
: "${OEDL_SQL_USER:?set OEDL_SQL_USER (statistics)}"
: "${OEDL_SQL_PASSWORD:?set OEDL_SQL_PASSWORD (statistics)}"

# after-imaging: applies: the source had after-imaging on (describe prints its After Imaging section); a dump and load does not carry it. The target needs AI extents (prostrct add) and a full backup before aimage begin
/opt/dlc/bin/probkup /db/new/prod "${OEDL_BACKUP}"
/opt/dlc/bin/rfutil /db/new/prod -C aimage begin

# replication: does not apply: the source was not a replication source (describe lists no feature 1, OpenEdge Replication)
# /opt/dlc/bin/proutil /db/new/prod -C enablesitereplication source

# statistics: applies: a loaded database has no SQL statistics (SYSTBLSTAT, SYSIDXSTAT, SYSCOLSTAT start empty): the SQL optimizer needs them. Needs the target served with a SQL broker
/opt/dlc/bin/sqlexp -char -db /db/new/prod -S "${OEDL_SQL_PORT}" -user "${OEDL_SQL_USER}" -password "${OEDL_SQL_PASSWORD}" -infile '/work/run 1/update-statistics.sql' -outfile '/work/run 1/update-statistics.out'
