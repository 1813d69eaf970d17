#!/bin/sh
# A naive parallel dump/load kit in the style of seed 003's scripts, the
# second baseline `scripts/bench compare` measures oedl against (issue 12):
#
#   1. the target prepared first: prostrct create, procopy empty, load .df;
#   2. source and target served, 8 static dump streams, the tables dealt
#      to them by size (largest first, round robin), each finished file
#      moved to a staging directory;
#   3. a loader: 4 workers, each takes the largest staged file (rename is
#      the claim: two workers cannot load one file) and loads it, no
#      per-area cap;
#   4. both shut down, idxbuild all, tabanalys on both sides and the counts
#      compared: a run whose counts differ, or any utility that fails, is
#      reported as failed (exit 1).
#
# It is not executable on purpose: scripts/bench runs every executable of
# scripts/bench.d/ as a benchmark, and this is a baseline, run with `sh`.
#
# usage: DLC=/usr/dlc sh naive-parallel.sh SOURCE TARGET PLANDIR WORKDIR
#   (the arguments of sequential-dumpload.sh)
set -eu

if [ "$#" -ne 4 ]; then
	echo "usage: DLC=... $0 SOURCE TARGET PLANDIR WORKDIR" >&2
	exit 2
fi
: "${DLC:?set DLC to the OpenEdge install}"
# Absolute paths: the target is created from inside its directory.
abs() { case $1 in /*) printf '%s\n' "$1" ;; *) printf '%s\n' "$PWD/$1" ;; esac; }
src=$(abs "$1") tgt=$(abs "$2") plan=$(abs "$3") work=$(abs "$4")
bin=$DLC/bin
streams=8 loaders=4
mkdir -p "$work/staged" "$work/loading" "$work/loaded"
log=$work/kit.log
: >"$log"
rm -f "$work/dumps.done" "$work/failed"

step() { printf '%s %s\n' "$(date +%H:%M:%S)" "$*" | tee -a "$log" >&2; }
fail() { echo "$*" >>"$work/failed"; echo "$*" >&2; }

served=""
shutdown_all() {
	for db in $served; do "$bin/proshut" "$db" -by >>"$log" 2>&1 || true; done
	served=""
}
trap shutdown_all EXIT

step "kit: tabanalys of $src"
"$bin/proutil" "$src" -C tabanalys >"$work/source.tba"

step "kit: prepare $tgt"
tdir=$(dirname "$tgt")
mkdir -p "$tdir"
(cd "$tdir" && "$bin/prostrct" create "$tgt" "$plan/target.st" -blocksize 8192) >>"$log" 2>&1
"$bin/procopy" "$DLC/empty8" "$tgt" >>"$log" 2>&1
"$bin/_progres" -b -db "$tgt" -1 -p prodict/load_df.p -param "$plan/target.df" >>"$log" 2>&1

# The tables with their size in bytes, largest first, dealt to the streams.
awk '$1 ~ /^[A-Za-z][^ ]*\.[^_ ][^ ]*$/ && $2 ~ /^[0-9]+$/ {
	s = $3; m = 1
	if (s ~ /K$/) m = 1024; else if (s ~ /M$/) m = 1048576; else if (s ~ /G$/) m = 1073741824; else if (s ~ /T$/) m = 1099511627776
	sub(/[BKMGT]$/, "", s); printf "%.0f %s\n", s * m, $1
}' "$work/source.tba" | sort -u -k2,2 | sort -k1,1nr -k2,2 >"$work/tables.txt"
i=0
while [ "$i" -lt "$streams" ]; do : >"$work/stream$i.txt"; mkdir -p "$work/dump$i"; i=$((i + 1)); done
awk -v n="$streams" -v dir="$work" '{ print $2 > (dir "/stream" ((NR - 1) % n) ".txt") }' "$work/tables.txt"
step "kit: $(wc -l <"$work/tables.txt") tables in $streams dump streams, $loaders loaders"

"$bin/proserve" "$src" >>"$log" 2>&1
served="$src"
"$bin/proserve" "$tgt" >>"$log" 2>&1
served="$served $tgt"

dump_stream() {
	while IFS= read -r t; do
		out=$("$bin/proutil" "$src" -C dump "$t" "$work/dump$1" 2>&1) || { fail "dump of $t: $out"; return 1; }
		case $out in *"(6254)"*) ;; *) fail "dump of $t: no (6254): $out"; return 1 ;; esac
		for f in "$work/dump$1"/*.bd*; do
			if [ -e "$f" ]; then mv "$f" "$work/staged/"; fi
		done
	done <"$work/stream$1.txt"
}

# load_worker loads the largest staged file until the dumps are done and
# nothing is staged. The done marker is checked before the listing: once
# it exists, no file will be staged any more.
load_worker() {
	while [ ! -e "$work/failed" ]; do
		done_=0
		[ -e "$work/dumps.done" ] && done_=1
		f=$(ls -S "$work/staged" 2>/dev/null | head -n 1) # a file may go while ls looks
		if [ -z "$f" ]; then
			[ "$done_" = 1 ] && return 0
			sleep 0.05 # nothing staged yet: poll the dump streams' output
			continue
		fi
		mv "$work/staged/$f" "$work/loading/$f" 2>/dev/null || continue # another worker took it
		out=$("$bin/proutil" "$tgt" -C load "$work/loading/$f" 2>&1) || { fail "load of $f: $out"; return 1; }
		case $out in *"(6256)"*) ;; *) fail "load of $f: no (6256): $out"; return 1 ;; esac
		mv "$work/loading/$f" "$work/loaded/$f"
	done
	return 1
}

step "kit: dump and load"
lpids=""
i=0
while [ "$i" -lt "$loaders" ]; do load_worker & lpids="$lpids $!"; i=$((i + 1)); done
dpids=""
i=0
while [ "$i" -lt "$streams" ]; do dump_stream "$i" & dpids="$dpids $!"; i=$((i + 1)); done
for p in $dpids; do wait "$p" || true; done
: >"$work/dumps.done"
for p in $lpids; do wait "$p" || true; done
if [ -e "$work/failed" ]; then
	step "kit: FAILED"
	exit 1
fi

shutdown_all
step "kit: idxbuild"
yes y | "$bin/proutil" "$tgt" -C idxbuild all >>"$log" 2>&1

step "kit: tabanalys of $tgt"
"$bin/proutil" "$tgt" -C tabanalys >"$work/target.tba"
counts() { awk '$1 ~ /^[A-Za-z][^ ]*\.[^_ ][^ ]*$/ && $2 ~ /^[0-9]+$/ { print $1, $2 }' "$1" | sort -u; }
counts "$work/source.tba" >"$work/source.counts"
counts "$work/target.tba" >"$work/target.counts"
if ! cmp -s "$work/source.counts" "$work/target.counts"; then
	diff "$work/source.counts" "$work/target.counts" >&2 || true
	step "kit: FAILED: the counts differ"
	exit 1
fi
step "kit: verified, $(wc -l <"$work/source.counts") tables, counts equal"
