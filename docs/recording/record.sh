#!/usr/bin/env bash
# record.sh OUT_DIR WIDTH HEIGHT EVERY_SECONDS -- COMMAND [ARGS...]
#
# Runs COMMAND in a detached tmux session of WIDTH x HEIGHT (a real
# terminal, so oedl shows its live screen on stderr) and saves a snapshot of
# the screen every EVERY_SECONDS seconds as OUT_DIR/tui-NNN.txt (tmux
# capture-pane, plain text), until COMMAND exits; the last screen is saved
# as OUT_DIR/tui-final.txt and the scrollback (the lines printed above the
# live area) as OUT_DIR/tui-scrollback.txt.
#
# The command is passed to tmux as an argv vector (no shell string of ours).
set -euo pipefail
if [[ $# -lt 6 || $5 != "--" ]]; then
	echo "usage: $0 OUT_DIR WIDTH HEIGHT EVERY_SECONDS -- COMMAND [ARGS...]" >&2
	exit 2
fi
out=$1 width=$2 height=$3 every=$4
shift 5
mkdir -p "$out"
session="oedl-record-$$"
tmux new-session -d -s "$session" -x "$width" -y "$height" -- "$@" \; set-option -t "$session" remain-on-exit on
trap 'tmux kill-session -t "$session" 2>/dev/null || true' EXIT
n=0
while [[ "$(tmux display-message -p -t "$session" '#{pane_dead}')" != "1" ]]; do
	sleep "$every"
	n=$((n + 1))
	tmux capture-pane -p -t "$session" >"$out/$(printf 'tui-%03d.txt' "$n")"
done
tmux capture-pane -p -t "$session" >"$out/tui-final.txt"
tmux capture-pane -p -S - -t "$session" >"$out/tui-scrollback.txt"
echo "exit status: $(tmux display-message -p -t "$session" '#{pane_dead_status}')" >>"$out/tui-final.txt"
