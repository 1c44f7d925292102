#!/usr/bin/env bash
# make e2e (CI): every experiment of a lab end to end on the native stack,
# from an empty state: render, up --native, run --strict (no failed step,
# every expectation of a healthy pipeline held), down; then check that no
# process of the lab is left behind. The record stays in $OUT/records.
#
#   scripts/e2e.sh [LAB [OUT]]    default labs/orders into out/e2e
#
# E2E_RUN_FLAGS adds flags to labgen run (make e2e: --controls for the
# seed lab, so that every expectation is shown able to fail).
set -euo pipefail
cd "$(dirname "$0")/.."
LAB=${1:-${LAB:-labs/orders}}
OUT=${2:-${OUT:-out/e2e}}
echo "== e2e: $LAB in $OUT"

make --no-print-directory build  # stamps the commit into labgen --version and the record
if [ -d "$OUT" ]; then
	bin/labgen down "$OUT" --volumes >/dev/null 2>&1 || true
fi
bin/labgen render "$LAB" -o "$OUT"
abs=$(cd "$OUT" && pwd)

status=0
start=$(date +%s)
# run --native brings the stack up, asks the engines to check the jobs,
# presets and query steps (at the lab's own lines: --lab) before it submits
# anything, then runs every experiment.
# shellcheck disable=SC2086 # E2E_RUN_FLAGS is a list of flags
bin/labgen run "$OUT" --native --strict --lab "$LAB" ${E2E_RUN_FLAGS:-} 2>&1 | tee "$OUT/run.log" || status=$?
echo "e2e: up and run in $(($(date +%s) - start)) s (exit $status)"
if [ "$status" -ne 0 ]; then
	echo "e2e: the services' last log lines:" >&2
	for f in "$OUT"/.native/logs/*.log; do
		[ -f "$f" ] || continue
		echo "---- $f" >&2
		tail -n 30 "$f" >&2
	done
fi
bin/labgen down "$OUT" || status=$?

# Nothing of the lab may outlive down: every process that names its
# directory (the supervisor, the JVMs' class paths and config dirs,
# mariadbd's datadir, the chdb front's path).
sleep 1
if left=$(pgrep -af -- "$abs/" | grep -v pgrep); then
	echo "e2e: processes left behind after labgen down:" >&2
	echo "$left" >&2
	status=1
else
	echo "e2e: no process left behind"
fi
# On failure, say last what failed: CI shows the head and the tail of
# this output, and the services' logs above would hide the healthy run's
# failures (the controls' lines are expected to fail, and are left out).
if [ "$status" -ne 0 ]; then
	echo "e2e: $LAB failed; what did not go right on the healthy stack:" >&2
	awk '/^control /{exit} /FAILED|timed out|not held|blind/' "$OUT/run.log" >&2 || true
	tail -n 4 "$OUT/run.log" >&2
fi
exit "$status"
