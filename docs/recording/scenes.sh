#!/usr/bin/env bash
# scenes.sh OEDL DEMO_DIR OUT_DIR
#
# Records the live screen of four bad-night scenes on real runs against
# oesim, at 80x24 and 120x30 (docs/recording/scenes/): a dump that hangs and
# is retried, a load that always fails, a cancel (q, then y), and a
# failure line wider than the terminal. DEMO_DIR is an `oedl demo --dir
# DEMO_DIR --scale 5MB` (its dlc and source database are reused; each scene
# has its own target, plan and work directory: a plan lays the extents out
# for one target, and oedl refuses to make files among another database's).
# The thresholds are the demo's for its 5 MB database (5 % and 0.5 % of its
# record bytes, as it prints them). The faults come from oesim's
# OESIM_FAULTS (docs/oesim-faults.md).
set -euo pipefail
if [[ $# -ne 3 ]]; then
	echo "usage: $0 OEDL DEMO_DIR OUT_DIR" >&2
	exit 2
fi
oedl=$(realpath "$1") demo=$(realpath "$2") out=$3
here=$(dirname "$(realpath "$0")")
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# scene NAME WIDTH HEIGHT FAULTS WORK_NAME [oedl run flags...]
scene() {
	local name=$1 w=$2 h=$3 faults=$4 workname=$5
	shift 5
	local dir="$tmp/$name-$w" snaps="$tmp/snaps-$name-$w"
	mkdir -p "$dir/target"
	local work="$dir/$workname"
	DLC="$demo/dlc" "$oedl" plan --source "$demo/db/source/erp" --dlc "$demo/dlc" --target "$dir/target/erp" \
		--large 256KB --medium 25KB -o "$dir/plan" >/dev/null
	"$here/record.sh" "$snaps" "$w" "$h" 1 -- env DLC="$demo/dlc" OESIM_STATE="$dir/oesim-state" \
		OESIM_FAULTS="$faults" OESIM_STARTUP_MS=40 "$oedl" run --source "$demo/db/source/erp" \
		--target "$dir/target/erp" --plan "$dir/plan" --work "$work" "$@" &
	local rec=$!
	if [[ $name == cancel ]]; then
		sleep 4
		tmux send-keys -t "$(tmux list-sessions -F '#S' | grep oedl-record | tail -1)" q
		sleep 1
		tmux capture-pane -p -t "$(tmux list-sessions -F '#S' | grep oedl-record | tail -1)" >"$snaps/asking.txt"
		tmux send-keys -t "$(tmux list-sessions -F '#S' | grep oedl-record | tail -1)" y
	fi
	wait "$rec"
	mkdir -p "$out/$name-$w"
	cp "$snaps/tui-final.txt" "$snaps/tui-scrollback.txt" "$out/$name-$w/"
	[[ -f $snaps/asking.txt ]] && cp "$snaps/asking.txt" "$out/$name-$w/"
	# the moment the scene is about: kept by name
	case $name in
	hung-dump) cp "$(grep -l 'stalled' "$snaps"/tui-0*.txt | tail -1)" "$out/$name-$w/stalled.txt" || true ;;
	esac
}

for size in "80 24" "120 30"; do
	set -- $size
	scene hung-dump "$1" "$2" 'dump:PUB.xxext_xref:hang-after=3000,once' work --job-timeout 25s
	# crash-safe loads: the scene is the area's repair (with -i, the
	# default, a failed load has the whole target created again)
	scene failed-load "$1" "$2" 'load:PUB.pt_mstr:crash-after=1' work --no-integrity=false
	scene cancel "$1" "$2" '*:delay=200ms' work
	scene wide-failure "$1" "$2" 'load:PUB.tr_hist:diskfull-after=10KB' \
		migrations-2026-11-production-reorganisation-of-the-erp-database-work
done
