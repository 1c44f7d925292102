#!/usr/bin/env bash
# make mutants: the mutation score of a lab on the native stack. Renders
# the lab, derives the mutants of each of its streaming jobs with Flink's
# own parser (prove/flink/prove-flink.sh --mutants: each one planned),
# then runs the lab with its controls and every such mutant as a control
# aimed at every measuring expectation (labgen run --mutants), and takes
# the stack down. The record, with the score and each survivor's diff,
# stays in $OUT/records.
#
#   scripts/mutants.sh [LAB [OUT]]    default docs/tutorial/bikes into out/mutants
#
# Each mutant costs a job submitted, the experiments' capped run and the
# job's own SQL submitted again: about a minute on the bikes lab.
set -euo pipefail
cd "$(dirname "$0")/.."
LAB=${1:-${LAB:-docs/tutorial/bikes}}
OUT=${2:-${OUT:-out/mutants}}
echo "== mutants: $LAB in $OUT"

make --no-print-directory build
if [ -d "$OUT" ]; then
	bin/labgen down "$OUT" --volumes >/dev/null 2>&1 || true
fi
bin/labgen render "$LAB" -o "$OUT"

# The lab's streaming jobs, in lab.json's order; the lake tables' setup
# file first, as on the lab's servers.
jobs=$(awk '/^  "jobs": \[/{j=1; next} j && /^  []]/{j=0} j && /^      "name": "/{sub(/^      "name": "/, ""); sub(/",?$/, ""); n=$0} j && /^      "mode": "streaming"/{print n}' "$OUT/lab.json")
files=()
[ -f "$OUT/sql/flink/lake_tables.sql" ] && files+=(sql/flink/lake_tables.sql)
for j in $jobs; do files+=("sql/flink/$j.sql"); done
# Relative paths: the mutants' "source" names no directory of this machine.
(cd "$OUT" && "$OLDPWD/prove/flink/prove-flink.sh" --mutants "${files[@]}") >"$OUT/mutants.json"

status=0
bin/labgen run "$OUT" --native --strict --lab "$LAB" --mutants "$OUT/mutants.json" 2>&1 | tee "$OUT/run.log" || status=$?
bin/labgen down "$OUT" || status=$?
exit "$status"
