#!/usr/bin/env bash
# Estimate against the run for two plans of one oesim erp database, with
# two oedl binaries (A: before a change to the model or calibrate, B:
# after): a tabanalys plan (index areas on variable extents: no index
# sizes) and a dbanalys plan (`oedl plan --source`: every area sized, on
# fixed extents). For each binary and plan: oedl calibrate (on oesim's
# disk, described to it, its request counters read, as scripts/bench
# compare calibrates), oedl estimate with the job counts the run picks (the
# built-in model's), then oedl run, timed. Prints one line each: the
# estimate, the run's wall, their ratio, and each job phase's seconds in
# the run's journal and in the estimate.
#
#   scripts/ab-estimate-plans.sh A_OEDL [B_OEDL=this tree's] [scale=40MB]
#   AB_MBPS=30 AB_IOPS=2000 AB_STARTUP_MS=150 scripts/ab-estimate-plans.sh /tmp/oedl-main
# oesim and the plans are this tree's for both.
set -euo pipefail
cd "$(dirname "$0")/.."
a=${1:?give the A oedl binary}
scale=${3:-40MB}
mbps=${AB_MBPS:-30}
iops=${AB_IOPS:-2000}
startup=${AB_STARTUP_MS:-150}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/oesim" ./cmd/oesim
b=${2:-}
if [[ -z "$b" ]]; then
  go build -o "$dir/oedl" ./cmd/oedl
  b=$dir/oedl
fi
DLC=$dir/dlc
export DLC
"$dir/oesim" install "$DLC" >/dev/null
mkdir -p "$dir/src"
"$dir/oesim" gen --dlc "$DLC" --db "$dir/src/erp" --profile erp --scale "$scale" --seed 11 >/dev/null
"$b" plan --source "$dir/src/erp" --dlc "$DLC" -o "$dir/plan-db" >/dev/null
"$DLC/bin/proutil" "$dir/src/erp" -C tabanalys >"$dir/erp.tba"
"$b" plan --tabanalys "$dir/erp.tba" --df "$dir/plan-db/source.df" -o "$dir/plan-tba" >/dev/null
disk=(OESIM_DISK_MBPS="$mbps" OESIM_DISK_IOPS="$iops" OESIM_STARTUP_MS="$startup")
diskmb=$(python3 -c "print(f'{$mbps*1048576/1e6:.3f}')")
echo "erp $scale, $mbps MiB/s, $iops IOPS, start-up $startup ms; A $a, B $b; load $(cut -d' ' -f1-3 /proc/loadavg)"
for way in A B; do
  o=$a
  [[ $way == B ]] && o=$b
  for pl in tba db; do
    c=$dir/$way-$pl
    mkdir -p "$c"
    env "${disk[@]}" OESIM_STATE="$c/cal-state" "$DLC/bin/proutil" "$dir/src/erp" -C describe >/dev/null
    env "${disk[@]}" OESIM_STATE="$c/cal-state" "$o" calibrate --source "$dir/src/erp" --dlc "$DLC" --work "$c/cal-work" \
      --plan "$dir/plan-$pl" -o "$c/cal.json" --volume generic --disk-mbps "$diskmb" --iops "$iops" \
      --diskstats "$c/cal-state/diskstats" --disk-device vdisk >"$c/cal.log" 2>&1
    rm -rf "$c/cal-work"
    read -r dj lj < <("$o" estimate --plan "$dir/plan-$pl" --samples 0 --json 2>/dev/null |
      python3 -c 'import json,sys; s=json.load(sys.stdin)["strategy"]; print(s["dump_jobs"], s["load_jobs"])')
    "$o" estimate --plan "$dir/plan-$pl" --calibration "$c/cal.json" --volume generic --disk-mbps "$diskmb" --iops "$iops" \
      --samples 0 --json --dump-jobs "$dj" --load-jobs "$lj" >"$c/estimate.json" 2>/dev/null
    s=$(date +%s.%N)
    env "${disk[@]}" OESIM_STATE="$c/state" "$o" run --source "$dir/src/erp" --target "$c/tgt/erp" --plan "$dir/plan-$pl" \
      --work "$c/work" --dlc "$DLC" --no-tui >"$c/run.log" 2>&1
    e=$(date +%s.%N)
    python3 - "$way" "$pl" "$dj" "$lj" "$s" "$e" "$c" <<'PY'
import json, sys
from datetime import datetime
way, pl, dj, lj, s, e, c = sys.argv[1:]
wall = float(e) - float(s)
est = json.load(open(c + "/estimate.json"))
def ts(t):
    return datetime.fromisoformat(t[:26].rstrip("Z")).timestamp()
spans = {}
for line in open(c + "/work/journal.jsonl"):
    r = json.loads(line)
    if r.get("job") in ("create-target", "idxbuild", "analyze-target") and r.get("state") in ("started", "done"):
        spans.setdefault(r["job"], {})[r["state"]] = ts(r["time"])
ran = {j: round(v["done"] - v["started"], 2) for j, v in spans.items() if "done" in v and "started" in v}
phases = {p["name"]: round(p.get("duration_s", 0), 2) for p in est["phases"]}
print(f"{way} {pl}: {dj} dumps {lj} loads; estimate {est['window_s']:.2f}s, run {wall:.2f}s, run/estimate {wall/est['window_s']:.3f}; "
      f"run's jobs {ran}; estimate's phases {phases}")
PY
    rm -rf "$c/tgt"
  done
done
echo "end: load $(cut -d' ' -f1-3 /proc/loadavg)"
