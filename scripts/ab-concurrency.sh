#!/usr/bin/env bash
# A/B of oedl run's concurrency defaults on one oesim erp database, in one
# run, alternated: A = the defaults before issue 12 on this machine, given
# as flags (2 dumps and 1 load per core, at least 2, one load per area);
# B = today's defaults (no flags: job counts sized from what binds, no
# per-area cap in Type II areas). Every run is verified by oedl itself
# (exit 0 only after the counts match). Prints one line per run and the
# ratio of the medians.
#
#   scripts/ab-concurrency.sh [scale=40MB] [rounds=2]
#   AB_MBPS=30 AB_IOPS=2000 AB_STARTUP_MS=300 scripts/ab-concurrency.sh 40MB 2
#   AB_A_FLAGS="--loads-per-area 1" scripts/ab-concurrency.sh 40MB 2
#   AB_A_FLAGS="--batch-loads=false" AB_B_FLAGS="--batch-loads" scripts/ab-concurrency.sh 40MB 3
#   AB_PROFILE=seed003 AB_PREPARED=1 scripts/ab-concurrency.sh 40MB 2
#   AB_TUNE_DISK=1 AB_A_FLAGS="--dump-jobs 2 --load-jobs 2 --tune off" AB_B_FLAGS="--dump-jobs 2 --load-jobs 2 --tune auto" AB_PROFILE=seed003 AB_STARTUP_MS=150 scripts/ab-concurrency.sh 40MB 2
# AB_TUNE_DISK=1 gives both runs --diskstats and --disk-device of the
# run's virtual disk, the device oedl run --tune watches (both binaries
# must know the flags).
# AB_PROFILE is the oesim profile (default erp); AB_PREPARED=1 runs oedl
# prepare before each run, untimed, as a prepared target is made before
# the outage (its chain, not the target's creation, is then what binds).
# AB_A_OEDL=path runs A with another oedl binary (main's, say: a branch
# against main), with no flags unless AB_A_FLAGS gives some; oesim is
# this tree's for both, unless AB_A_OESIM=path gives A's (main's, for a
# change to the simulator itself): A's runs then use a DLC installed from
# it. The source database and the plan are made with this tree's.
#   AB_A_OEDL=/tmp/oedl-main AB_PROFILE=seed003 AB_PREPARED=1 AB_MBPS=10 scripts/ab-concurrency.sh 40MB 2
#   AB_A_OEDL=/tmp/oedl-main AB_A_OESIM=/tmp/oesim-main AB_PROFILE=seed003 AB_PREPARED=1 AB_STARTUP_MS=150 scripts/ab-concurrency.sh 40MB 2
set -euo pipefail
cd "$(dirname "$0")/.."
scale=${1:-40MB}
rounds=${2:-2}
mbps=${AB_MBPS:-30}
iops=${AB_IOPS:-2000}
startup=${AB_STARTUP_MS:-300}
profile=${AB_PROFILE:-erp}
cores=$(nproc)
old=(--dump-jobs $((cores * 2 > 2 ? cores * 2 : 2)) --load-jobs $((cores > 2 ? cores : 2)) --loads-per-area 1)
if [[ -n "${AB_A_OEDL:-}" ]]; then old=(); fi
# AB_A_FLAGS replaces A's flags (e.g. "--loads-per-area 1": today's job
# counts with one load per area, to see the two changes apart).
if [[ -n "${AB_A_FLAGS:-}" ]]; then read -r -a old <<<"$AB_A_FLAGS"; fi
# AB_B_FLAGS gives B flags of its own (default: none, today's defaults).
new=()
if [[ -n "${AB_B_FLAGS:-}" ]]; then read -r -a new <<<"$AB_B_FLAGS"; fi

base=$(mktemp -d /tmp/oedl-ab-XXXXXX)
# AB_KEEP=1 keeps the work directories (journals, timings) to read after.
if [[ -z "${AB_KEEP:-}" ]]; then trap 'rm -rf "$base"' EXIT; else echo "keeping $base"; fi
go build -o "$base/bin/oedl" ./cmd/oedl
go build -o "$base/bin/oesim" ./cmd/oesim
oedl_a=${AB_A_OEDL:-$base/bin/oedl} oedl_b=$base/bin/oedl
"$base/bin/oesim" install "$base/dlc" >/dev/null
export DLC=$base/dlc
dlc_a=$DLC dlc_b=$DLC
if [[ -n "${AB_A_OESIM:-}" ]]; then
  dlc_a=$base/dlc-a
  "$AB_A_OESIM" install "$dlc_a" >/dev/null
fi
"$DLC/bin/oesim" gen --dlc "$DLC" --db "$base/src/$profile" --profile "$profile" --scale "$scale" --seed 11 >/dev/null
"$base/bin/oedl" plan --source "$base/src/$profile" --dlc "$DLC" -o "$base/plan" >/dev/null 2>&1
tables=$(grep -c '"table":' "$base/plan/plan.json" || true)

one() { # name, round, oedl binary, DLC, flags...: prints the wall time in seconds
  local name=$1 n=$2 oedl=$3 DLC=$4
  export DLC
  shift 4
  local t0 t1
  export OESIM_DISK_MBPS=$mbps OESIM_DISK_IOPS=$iops OESIM_STARTUP_MS=$startup OESIM_STATE="$base/state-$name$n"
  if [[ -n "${AB_PREPARED:-}" ]]; then
    "$oedl" prepare --source "$base/src/$profile" --target "$base/tgt-$name$n/$profile" --plan "$base/plan" \
      --work "$base/work-$name$n" --dlc "$DLC" >"$base/prep-$name$n" 2>&1 ||
      { echo "oedl prepare ($name) failed:" >&2; tail -20 "$base/prep-$name$n" >&2; exit 1; }
  fi
  local disk=()
  if [[ -n "${AB_TUNE_DISK:-}" ]]; then disk=(--diskstats "$OESIM_STATE/diskstats" --disk-device vdisk); fi
  t0=$(date +%s.%N)
  "$oedl" run --source "$base/src/$profile" --target "$base/tgt-$name$n/$profile" --plan "$base/plan" \
    --work "$base/work-$name$n" --dlc "$DLC" --no-tui ${disk[@]+"${disk[@]}"} "$@" >"$base/out-$name$n" 2>&1 ||
    { echo "oedl run ($name) failed:" >&2; tail -20 "$base/out-$name$n" >&2; exit 1; }
  t1=$(date +%s.%N)
  echo "$t1 - $t0" | bc
}

echo "$profile at $scale ($tables tables), disk $mbps MiB/s $iops IOPS, start-up $startup ms, $cores cores"
echo "A: $oedl_a ${old[*]:-the defaults} (oesim of $dlc_a)   B: $oedl_b ${new[*]:-the defaults} (oesim of $dlc_b)"
a=() b=()
for ((i = 1; i <= rounds; i++)); do
  s=$(one old "$i" "$oedl_a" "$dlc_a" ${old[@]+"${old[@]}"}); a+=("$s"); echo "round $i A ${s}s (verified)"
  s=$(one new "$i" "$oedl_b" "$dlc_b" ${new[@]+"${new[@]}"}); b+=("$s"); echo "round $i B ${s}s (verified)"
done
median() { printf '%s\n' "$@" | sort -n | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }
ma=$(median "${a[@]}") mb=$(median "${b[@]}")
echo "median A ${ma}s, B ${mb}s, A/B $(echo "scale=2; $ma / $mb" | bc)x"
# What B ran with: the strategy line of the dry run with the same model.
"$base/bin/oedl" run --dry-run --source "$base/src/$profile" --target "$base/tgt-dry/$profile" --plan "$base/plan" --dlc "$DLC" ${new[@]+"${new[@]}"} 2>/dev/null |
  grep -m1 'strategy:' || true
