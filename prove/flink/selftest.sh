#!/usr/bin/env bash
# Self-test of prove-flink on its own testdata: the splitter's cuts, the sample
# lab files passing, and the broken files failing with Flink's/Fluss's own
# messages at the right file:line. Prints "N passed, N failed".
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
pass=0; fail=0
check() { # name, condition result (0 = ok)
  if [[ "$2" == 0 ]]; then pass=$((pass+1)); echo "ok   $1"; else fail=$((fail+1)); echo "FAIL $1"; fi
}
has() { grep -qF -- "$2" <<<"$1"; echo $?; }

# build once (prove-flink.sh builds when needed)
./prove-flink.sh --help >/dev/null || { echo "0 passed, 1 failed"; exit 1; }
cp="target/classes:$(cat target/classpath.txt)"

out="$(java -cp "$cp" labgen.prove.flink.Main --split-only testdata/splitter_edge_cases.sql)"
diff <(echo "$out") testdata/splitter_edge_cases.expected >/dev/null; check "splitter cuts match splitter_edge_cases.expected" $?

out="$(./prove-flink.sh testdata/order_wide.sql testdata/lake_consistency_audit.sql testdata/paimon_lake_check.sql 2>&1)"; rc=$?
check "sample lab files pass (exit 0)" $rc
check "order_wide: 10 executed / 1 planned / 3 live / 0 failed" "$(has "$out" "testdata/order_wide.sql: 10 executed / 1 planned / 3 need a live server / 0 failed")"
check "statement set writes the Fluss stand-in" "$(has "$out" "fluss_catalog.lab.dwd_order_wide [Fluss stand-in] upsertMaterialize <- changelog [I,UB,UA,D]")"
check "batch audit reads Fluss (stand-in) and Iceberg" "$(has "$out" "reads:  fluss_catalog.lab.dwd_order_wide [Fluss stand-in]")"
check "Fluss \$lake read planned" "$(has "$out" "fluss_catalog.lab.dwd_order_wide\$lake [Fluss stand-in]")"
check "warehouse rewrite is reported" "$(has "$out" "'warehouse' rewritten from 'file:///warehouse/iceberg'")"
check "Fluss substitution is reported" "$(has "$out" "note: Fluss tables substituted")"

out="$(./prove-flink.sh testdata/broken_option.sql 2>&1)"; rc=$?
check "broken_option.sql exits 1" "$([[ $rc == 1 ]]; echo $?)"
check "wrong option: Flink's message" "$(has "$out" "Unsupported options found for 'mysql-cdc'.")"
check "wrong option: file:line" "$(has "$out" "testdata/broken_option.sql:5: CREATE TEMPORARY TABLE orders")"
check "wrong option: hint" "$(has "$out" "did you mean 'server-time-zone'?")"
check "parse error mapped to file:line:col" "$(has "$out" "is testdata/broken_option.sql:29:61)")"

out="$(./prove-flink.sh testdata/broken_fluss_table.sql 2>&1)"; rc=$?
check "broken_fluss_table.sql exits 1" "$([[ $rc == 1 ]]; echo $?)"
check "Fluss rejects VARCHAR(n)" "$(has "$out" "Unsupported data type: VARCHAR(32)")"
check "Fluss coordinator validation rejects an unknown table property" "$(has "$out" "'table.datalake.freshnes' is not a recognized Fluss table property")"

out="$(./prove-flink.sh testdata/broken_changelog.sql 2>&1)"; rc=$?
check "broken_changelog.sql exits 1" "$([[ $rc == 1 ]]; echo $?)"
check "append-only sink fed updates: planner's message" "$(has "$out" "doesn't support consuming update and delete changes")"

echo "$pass passed, $fail failed"
[[ $fail == 0 ]]
