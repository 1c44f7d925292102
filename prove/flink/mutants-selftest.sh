#!/usr/bin/env bash
# Self-test of `prove-flink.sh --mutants` on the streaming jobs of the four labs
# (labs/orders, labs/sensors, labs/orders_pg, docs/tutorial/bikes), rendered
# first with the Go binary. One JVM for all of them, a second one for the
# byte-for-byte re-run of labs/orders. Needs go and what prove-flink.sh needs.
# Prints "N passed, N failed". Apart from selftest.sh because it takes a minute.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
pass=0; fail=0
check() { # name, condition result (0 = ok)
  if [[ "$2" == 0 ]]; then pass=$((pass+1)); echo "ok   $1"; else fail=$((fail+1)); echo "FAIL $1"; fi
}
is() { [[ "$1" == "$2" ]]; echo $?; }
has() { grep -qF -- "$2" "$1"; echo $?; }

(cd "$repo" && go build -o "$tmp/labgen" ./cmd/labgen) || { echo "0 passed, 1 failed"; exit 1; }
for lab in labs/orders labs/sensors labs/orders_pg docs/tutorial/bikes; do
  (cd "$repo" && "$tmp/labgen" render "$lab" -o "$tmp/$(basename "$lab")" >/dev/null) \
    || { echo "render $lab failed"; echo "0 passed, 1 failed"; exit 1; }
done
# relative paths, so that "source" does not name this machine's temp dir
cd "$tmp"
f=orders/sql/flink; s=sensors/sql/flink; p=orders_pg/sql/flink; b=bikes/sql/flink
files=($f/lake_tables.sql $f/order_wide.sql $s/device_window.sql $s/site_heat.sql $s/deliveries.sql
       $p/lake_tables.sql $p/order_wide.sql $b/trips.sql)
"$here/prove-flink.sh" --mutants "${files[@]}" >all.json 2>err.txt; rc=$?
check "--mutants on the 6 streaming jobs of 4 labs exits 0 (every mutant parses and plans)" "$rc"
[[ $rc == 0 ]] || cat err.txt

# one document per job: doc1.json ... in the order given
awk '/^\{$/{n++} {print > ("doc" n ".json")}' all.json
check "6 job documents" "$(is "$(grep -c '^{$' all.json)" 6)"
check "setup files are reported as setup" "$(has err.txt "lake_tables.sql: no INSERT; proved as setup")"

ops() { # doc operator -> count of entries of that operator
  grep -c "^      \"operator\": \"$2\"" "$1"
}
d=doc1.json
check "doc1 is orders' order_wide" "$(has $d '"source": "orders/sql/flink/order_wide.sql"')"
check "order_wide: 1 inner_join (one LEFT JOIN)" "$(is "$(ops $d inner_join)" 1)"
check "order_wide: 0 drop_conjunct (one conjunct), and says so" \
  "$( [[ $(ops $d drop_conjunct) == 0 ]] && grep -q 'drop_conjunct: the condition of the join with payments has one conjunct' $d; echo $?)"
check "order_wide: 8 null_column (9 columns, the key order_id skipped)" "$(is "$(ops $d null_column)" 8)"
check "order_wide: 8 constant_column" "$(is "$(ops $d constant_column)" 8)"
check "order_wide: order_id reported as skipped" "$(has $d '"skipped_columns": ["order_id (a primary-key column of the sink')"
check "order_wide: 1 lose_keys on o.order_id" \
  "$( [[ $(ops $d lose_keys) == 1 ]] && grep -qF 'WHERE MOD(`o`.`order_id`, 10) <> 3' $d; echo $?)"
check "order_wide: 1 duplicate_output (UNION ALL)" \
  "$( [[ $(ops $d duplicate_output) == 1 ]] && grep -qF 'UNION ALL' $d; echo $?)"
check "order_wide: 3 append_only_sink entries, all skipped with a reason" \
  "$( [[ $(ops $d append_only_sink) == 3 && $(grep -A3 '"operator": "append_only_sink"' $d | grep -c '"skipped"') == 3 ]]; echo $?)"
check "order_wide: upsert-kafka written append-only is rejected by the planner" \
  "$(has $d "Flink does not plan it: Table sink 'default_catalog.default_database.dwd_order_wide' doesn't support consuming update and delete changes")"
check "order_wide: inner_join select has INNER JOIN payments" "$(has $d 'INNER JOIN `payments` AS `p`')"
check "order_wide: constant payment_status is the COALESCE literal" "$(has $d "CAST('PENDING' AS VARCHAR(16)) AS \`payment_status\`")"
check "order_wide: no mutant equivalent" "$(is "$(grep -c '"equivalent": true' $d)" 0)"
check "order_wide: 19 planned = 19 select fields" \
  "$(is "$(grep -c '^      "select": ' $d)" 19)"

d=doc2.json
check "device_window: key columns device_id, window_start skipped" "$(has $d '"skipped_columns": ["device_id (a primary-key column of the sink: a NULL or constant key fails or merges every row)", "window_start (')"
check "device_window: append-only sink is equivalent (insert-only input)" \
  "$(grep -A3 '"name": "append_only_sink:device_window"' $d | grep -q '"equivalent": true'; echo $?)"
d=doc3.json
check "site_heat: lose_keys hashes the string key" "$(has $d 'MOD(ABS(`HASH_CODE`(`site`)), 10) <> 3')"
d=doc4.json
check "deliveries: 2 drop_conjunct (equality, time bound)" "$(is "$(ops $d drop_conjunct)" 2)"
check "deliveries: table hints survive the unparse" "$(has $d "/*+ \`OPTIONS\`('scan.startup.mode' = 'latest-offset') */ AS \`r\`")"
d=doc5.json
check "orders_pg order_wide: Paimon catalog sink skipped" "$(has $d '"name": "append_only_sink:paimon_catalog.lab.dwd_order_wide"')"
d=doc6.json
check "trips: constant status is the CASE's first literal" "$(has $d "CAST('RIDING' AS VARCHAR(8)) AS \`status\`")"

"$here/prove-flink.sh" --mutants --out again.json $f/lake_tables.sql $f/order_wide.sql 2>/dev/null
cmp -s again.json doc1.json; check "re-running gives identical bytes (orders)" $?

echo "$pass passed, $fail failed"
[[ $fail == 0 ]]
