#!/bin/sh
# selftest.sh — prove-clickhouse.sh must fail on testdata/broken with
# ClickHouse's own messages and the file:line / preset / step they came from.
# Exit status as prove-clickhouse.sh's (77 = skipped), 1 when a check fails.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=$(LABGEN_KAFKA_BROKER='' "$here/prove-clickhouse.sh" "$here/testdata/broken" 2>&1)
rc=$?
[ "$rc" = 77 ] && { printf '%s\n' "$out"; exit 77; }
bad=0
expect() {
	if ! printf '%s\n' "$out" | grep -qF -- "$1"; then
		echo "selftest: missing from the output: $1"
		bad=1
	fi
}
[ "$rc" = 1 ] || { echo "selftest: exit status $rc, want 1"; bad=1; }
expect "FAIL sql/clickhouse/schema.sql:15: Code: 50. DB::Exception: Unknown data type family: Text64"
expect "FAIL preset typo: Code: 47. DB::Exception: Unknown expression identifier \`amout\`"
expect "FAIL experiment e step pick: capture id (result.rows[0].id) reads result column 'id', which the query does not return (it returns: order_id)"
expect "2 statements executed / 3 queries run / 0 not checkable / 3 FAILED"
if [ "$bad" != 0 ]; then
	printf '%s\n' "--- output:" "$out"
	exit 1
fi
echo "selftest: PASS (prove-clickhouse.sh reports broken DDL, presets and captures)"
