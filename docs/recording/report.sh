#!/usr/bin/env bash
# report.sh OEDL OUT_DIR
#
# Makes the recording's report files (report.md, report.html and their
# screenshots report-1400.png and report-400.png) from a real run against
# oesim, so that a change to the report is shown by running this again,
# never by editing the files: the 5 MB demo database, a dump that hangs
# once (killed at its job timeout, retried), a load killed by SIGKILL once
# (its area repaired), the run interrupted (SIGINT, as Ctrl-C) after 7 s and
# resumed to verified. Needs chromium for the screenshots.
set -euo pipefail
if [[ $# -ne 2 ]]; then
	echo "usage: $0 OEDL OUT_DIR" >&2
	exit 2
fi
oedl=$(realpath "$1")
mkdir -p "$2"
out=$(realpath "$2")
tmp=$(mktemp -d /tmp/oedl-report.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

"$oedl" demo --dir "$tmp/demo" --scale 5MB --no-tui >/dev/null 2>&1
demo=$tmp/demo work=$tmp/wr
# The demo's own target, replaced: its record proves it oedl's and
# untouched (the plan's extents are there). Crash-safe loads, so that the
# killed load's area is repaired rather than the target made again.
cmd=(env DLC="$demo/dlc" OESIM_STATE="$tmp/oesim-state" OESIM_STARTUP_MS=40
	OESIM_FAULTS='dump:PUB.tr_hist:hang,once; load:PUB.so_mstr:crash-after=1,once'
	"$oedl" run --source "$demo/db/source/erp" --target "$demo/db/target/erp" --plan "$demo/plan"
	--work "$work" --job-timeout 3s --no-integrity=false --no-tui)
# A simple command in the background: $! is oedl itself (env execs it),
# which the interrupt must reach; job control on, since without it bash
# starts a background command with SIGINT ignored.
set -m
"${cmd[@]}" --force >/dev/null 2>&1 &
pid=$!
# Interrupted once the hung dump was killed and its second attempt began
# (the journal says so), as a DBA's Ctrl-C.
until grep -q '"job":"dump:PUB.tr_hist","kind":"dump","state":"started","attempt":2' "$work/journal.jsonl" 2>/dev/null; do
	if ! kill -0 "$pid" 2>/dev/null; then
		echo "$0: the run ended before the hung dump was retried" >&2
		exit 1
	fi
	sleep 0.1
done
kill -INT "$pid"
code=0
wait "$pid" || code=$?
if [[ $code -ne 130 ]]; then
	echo "$0: the first invocation ended with $code, not 130 (interrupted): the report would not show a resume" >&2
	exit 1
fi
"${cmd[@]}" --resume >/dev/null 2>&1
"$oedl" report --work "$work" >/dev/null
cp "$work/report.md" "$work/report.html" "$out/"
for w in 1400 400; do
	chromium --headless --no-sandbox --screenshot="$out/report-$w.png" --window-size="$w,2400" \
		--hide-scrollbars "file://$out/report.html" 2>/dev/null
done
