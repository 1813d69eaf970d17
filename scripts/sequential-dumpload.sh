#!/bin/sh
# The classic dump/load a DBA writes by hand, one utility at a time:
# dump every table, then load every file, then rebuild the indexes. It is
# the baseline `scripts/bench` compares `oedl run` with.
#
# usage: DLC=/usr/dlc sequential-dumpload.sh SOURCE TARGET PLANDIR WORKDIR
#   SOURCE   source database (not in use)
#   TARGET   target database to create (must not exist)
#   PLANDIR  oedl plan's directory: target.st and target.df are used
#   WORKDIR  dump files, reports and logs go here
#
# Every name is quoted: tables and areas may hold spaces, quotes, $(...).
set -eu

if [ "$#" -ne 4 ]; then
	echo "usage: DLC=... $0 SOURCE TARGET PLANDIR WORKDIR" >&2
	exit 2
fi
: "${DLC:?set DLC to the OpenEdge install}"
src=$1 tgt=$2 plan=$3 work=$4
bin=$DLC/bin
mkdir -p "$work/dump"
log=$work/sequential.log
: >"$log"

step() { printf '%s %s\n' "$(date +%H:%M:%S)" "$*" | tee -a "$log" >&2; }

step "baseline: tabanalys of $src"
"$bin/proutil" "$src" -C tabanalys >"$work/source.tba"

# The tables: every owner.table row of the report, without the meta-schema.
awk '$1 ~ /^[A-Za-z][^ ]*\.[^_ ][^ ]*$/ && $2 ~ /^[0-9]+$/ { print $1 }' "$work/source.tba" | sort -u >"$work/tables.txt"
step "$(wc -l <"$work/tables.txt") tables"

step "create $tgt"
tdir=$(dirname "$tgt")
mkdir -p "$tdir"
(cd "$tdir" && "$bin/prostrct" create "$tgt" "$plan/target.st" -blocksize 8192) >>"$log" 2>&1
"$bin/procopy" "$DLC/empty8" "$tgt" >>"$log" 2>&1
"$bin/_progres" -b -db "$tgt" -1 -p prodict/load_df.p -param "$plan/target.df" >>"$log" 2>&1

step "dump"
while IFS= read -r t; do
	out=$("$bin/proutil" "$src" -C dump "$t" "$work/dump" 2>&1) || { echo "$out" >&2; exit 1; }
	case $out in *"(6254)"*) ;; *) echo "dump of $t: no (6254)" >&2; echo "$out" >&2; exit 1 ;; esac
done <"$work/tables.txt"

step "load"
for f in "$work"/dump/*.bd*; do
	[ -e "$f" ] || continue
	out=$("$bin/proutil" "$tgt" -C load "$f" 2>&1) || { echo "$out" >&2; exit 1; }
	case $out in *"(6256)"*) ;; *) echo "load of $f: no (6256)" >&2; echo "$out" >&2; exit 1 ;; esac
done

step "idxbuild"
yes y | "$bin/proutil" "$tgt" -C idxbuild all >>"$log" 2>&1

step "after: tabanalys of $tgt"
"$bin/proutil" "$tgt" -C tabanalys >"$work/target.tba"
step "done"
