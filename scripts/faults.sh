#!/usr/bin/env bash
# Faults on the native stack: kill -9 each service of a running lab once,
# measure how long the supervisor takes to bring it back healthy, then run
# one experiment to show the pipeline works afterwards.
#
#   scripts/faults.sh LAB OUT [EXPERIMENT]    e.g. docs/tutorial/bikes out/faults 1
#
# Renders LAB into OUT, brings its native stack up, and leaves it up
# (bin/labgen down OUT stops it). Prints one line per service:
#   SERVICE  killed pid N  back healthy after S s (restarts R)
set -euo pipefail
cd "$(dirname "$0")/.."
LAB=${1:?usage: scripts/faults.sh LAB OUT [EXPERIMENT]}
OUT=${2:?usage: scripts/faults.sh LAB OUT [EXPERIMENT]}
EXP=${3:-1}

make --no-print-directory build >/dev/null
bin/labgen render "$LAB" -o "$OUT" >/dev/null
bin/labgen up "$OUT" --native >/dev/null
status="$OUT/.native/status.json"
field() { # field SERVICE KEY: a service's field of status.json
	python3 -c 'import json,sys; s=[x for x in json.load(open(sys.argv[1]))["services"] if x["name"]==sys.argv[2]][0]; print(s.get(sys.argv[3], ""))' "$status" "$1" "$2"
}
services=$(python3 -c 'import json,sys; print(" ".join(x["name"] for x in json.load(open(sys.argv[1]))["services"] if x["state"]=="healthy"))' "$status")
for svc in $services; do
	pid=$(field "$svc" pid)
	before=$(field "$svc" restarts)
	kill -9 "$pid"
	start=$(date +%s%3N)
	while :; do
		sleep 0.5
		ms=$(($(date +%s%3N) - start))
		if [ "$(field "$svc" state)" = healthy ] && [ "$(field "$svc" pid)" != "$pid" ]; then
			printf '%-14s killed pid %-7s back healthy after %d.%d s (restarts %s → %s)\n' "$svc" "$pid" $((ms / 1000)) $((ms % 1000 / 100)) "${before:-0}" "$(field "$svc" restarts)"
			break
		fi
		if [ "$ms" -gt 120000 ]; then
			printf '%-14s killed pid %-7s NOT back after 120 s: %s\n' "$svc" "$pid" "$(field "$svc" state)"
			break
		fi
	done
done
echo "== experiment $EXP after every kill (labgen run brings back the jobs the kills ended)"
bin/labgen run "$OUT" --experiment "$EXP" --strict
