#!/usr/bin/env bash
# prove/prove.sh — `make prove`: render the seed lab and its variants and run
# what they render through the real engines, without Docker:
#
#   flink       prove/flink/prove-flink.sh on each variant's sql/flink/*.sql
#               (Flink's parser and planner at the lab's versions)
#   clickhouse  prove/clickhouse/prove-clickhouse.sh on each rendered
#               directory (chdb), beside a real Kafka broker for the
#               Kafka-engine ingest check (internal/testkafka/withbroker)
#   kafka       go test ./internal/testkafka/ (a real Kafka 4.1.0 broker)
#
# Prints per engine what was executed / planned / not checkable and why, and
# exits non-zero on any failure. A part whose runtime (java, mvn, python3) is
# missing is skipped with the reason, unless LABGEN_TEST_SERVERS=require
# (CI), where that is a failure too.
#
# Environment: LAB (default labs/orders), PROVE_KEEP=1 keeps the rendered
# directories, PROVE_ONLY="flink clickhouse kafka" (any subset) limits the
# parts run.
set -uo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 2
lab=${LAB:-labs/orders}
only=${PROVE_ONLY:-flink clickhouse kafka}
mode=${LABGEN_TEST_SERVERS:-}
case "$mode" in "" | require | off) ;; *)
	echo "prove: LABGEN_TEST_SERVERS=$mode: want unset, require or off" >&2
	exit 2
	;;
esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/labgen-prove.XXXXXX") || exit 2
if [ "${PROVE_KEEP:-}" = 1 ]; then
	echo "prove: keeping $tmp"
else
	trap 'rm -rf "$tmp"' EXIT
fi

failed=0
summary=()
note() { summary+=("$(printf '%-11s %s' "$1" "$2")"); }
fail() {
	failed=1
	note "$1" "FAILED: $2"
}
# skip PART REASON: a missing runtime skips locally and fails in CI.
skip() {
	if [ "$mode" = require ]; then
		fail "$1" "$2 (LABGEN_TEST_SERVERS=require)"
	else
		note "$1" "SKIPPED: $2"
	fi
}
wants() { case " $only " in *" $1 "*) return 0 ;; esac; return 1; }
elapsed() { echo "$(($(date +%s) - $1))s"; }

# ---- build and render
echo "== build"
for p in cmd/labgen internal/testkafka/withbroker prove/clickhouse/stepsql; do
	if ! go build -o "$tmp/bin/$(basename "$p")" "./$p"; then
		echo "prove: go build ./$p failed" >&2
		exit 1
	fi
done
labgen=$tmp/bin/labgen

variants=(default lakes-false rate50-delay10s)
declare -A vargs=(
	[default]=""
	[lakes-false]="-var lakes=false"
	[rate50-delay10s]="-var order_rate=50 -var payment_delay=10s"
)
echo "== render $lab"
dirs=()
rendered=()
for v in "${variants[@]}"; do
	# A variant sets the seed lab's variables; another lab gets only those
	# of its variants whose variables it declares.
	skip=
	for a in ${vargs[$v]}; do
		case $a in -var) continue ;; esac
		grep -Eqs "^variable \"${a%%=*}\"" "$lab"/*.hcl || skip=1
	done
	if [ -n "$skip" ]; then
		echo "   $v: skipped ($lab does not declare ${vargs[$v]})"
		continue
	fi
	# shellcheck disable=SC2086 # vargs holds separate arguments
	if ! "$labgen" render "$lab" -o "$tmp/$v" ${vargs[$v]} >"$tmp/render-$v.log" 2>&1; then
		cat "$tmp/render-$v.log" >&2
		echo "prove: labgen render $lab ${vargs[$v]} failed" >&2
		exit 1
	fi
	echo "   $v: labgen render $lab ${vargs[$v]:-(defaults)} -> $tmp/$v"
	dirs+=("$tmp/$v")
	rendered+=("$v")
done

# flink_files DIR: the variant's sql/flink files: lake_tables.sql first (the
# jobs only name the lake tables it creates, as on the lab's servers), then
# the jobs in the lab's order (the order lab.json lists jobs, which the job
# submitter follows), then any other.
flink_files() {
	local dir=$1 name f
	local -a out=()
	[ -f "$dir/sql/flink/lake_tables.sql" ] && out+=("$dir/sql/flink/lake_tables.sql")
	while IFS= read -r name; do
		[ -f "$dir/sql/flink/$name.sql" ] && out+=("$dir/sql/flink/$name.sql")
	done < <(awk '/^  "jobs": \[/{j=1; next} j && /^  []]/{j=0} j && /^      "name": "/{sub(/^      "name": "/, ""); sub(/",?$/, ""); print}' "$dir/lab.json")
	for f in "$dir"/sql/flink/*.sql; do
		[ -f "$f" ] || continue
		case " ${out[*]} " in *" $f "*) ;; *) out+=("$f") ;; esac
	done
	printf '%s\n' "${out[@]}"
}

# lock_check DIR VARIANT: every connector jar of the rendered lock must be on
# the Flink prover's classpath with the same sha256, and the prover's Flink
# must be the image's: so the check proves the versions the compose stack
# runs, not just similar ones.
lock_check() {
	local dir=$1 v=$2 cp=prove/flink/target/classpath.txt n=0 bad=0 flinkv path coord sum jar g a ver
	# The prover's classpath: Maven's, plus the jars it adds itself (those
	# whose POMs Maven cannot resolve, see prove/flink/README.md).
	local extra=prove/flink/target/classes/extra-classpath.txt
	if [ ! -f "$cp" ]; then
		fail flink "$v: no prover classpath ($cp)"
		return
	fi
	cp=$(mktemp)
	{
		cat prove/flink/target/classpath.txt
		if [ -f "$extra" ]; then printf ':'; tr '\n' ':' <"$extra"; fi
	} >"$cp"
	flinkv=$(awk '$1 == "flink-base" { split($2, a, ":"); split(a[2], b, "-"); print b[1] }' "$dir/labgen.lock")
	# grep without -q reads to the end: with -q it stops at the first match,
	# tr dies of SIGPIPE on a long classpath and pipefail reports a failure.
	if ! tr ':' '\n' <"$cp" | grep -F "/flink-table-planner_2.12/$flinkv/" >/dev/null; then
		fail flink "$v: the prover's Flink is not the image's ($flinkv)"
		bad=1
	fi
	while read -r path coord sum _; do
		IFS=: read -r g a ver <<<"$coord"
		jar=$(tr ':' '\n' <"$cp" | grep -F -m1 "/${g//.//}/$a/$ver/$a-$ver.jar")
		if [ -z "$jar" ]; then
			fail flink "$v: $coord ($path in the lock) is not on the prover's classpath"
			bad=1
		elif [ "sha256:$(sha256sum "$jar" | cut -d' ' -f1)" != "$sum" ]; then
			fail flink "$v: $coord on the prover's classpath differs from the lock's sha256"
			bad=1
		else
			n=$((n + 1))
		fi
	done < <(sed -n '/^\[connectors\]/,/^\[/{/^lib\//p}' "$dir/labgen.lock")
	rm -f "$cp"
	if [ "$bad" = 0 ]; then
		note flink "$v: ran with the lock's $n lib/ connector jars (same sha256) on Flink $flinkv"
	fi
}

# ---- Flink
if wants flink; then
	echo "== flink"
	t0=$(date +%s)
	if [ "$mode" = off ]; then
		note flink "SKIPPED: test servers are turned off (LABGEN_TEST_SERVERS=off)"
	elif [ ! -x prove/flink/prove-flink.sh ]; then
		skip flink "prove/flink/prove-flink.sh is not there"
	elif ! command -v java >/dev/null 2>&1 || ! command -v mvn >/dev/null 2>&1; then
		skip flink "java or mvn not found (install Debian packages default-jdk-headless maven)"
	else
		declare -A proved=()
		for d in "${dirs[@]}"; do
			v=$(basename "$d")
			mapfile -t files < <(flink_files "$d")
			if [ "${#files[@]}" -eq 0 ]; then
				note flink "$v: no sql/flink/*.sql rendered"
				continue
			fi
			# A variant whose Flink SQL is byte for byte an earlier one's
			# (its variables change the producer alone) was proved there:
			# the planner would be asked the same questions again.
			sum=$(cd "$d" && printf '%s\n' "${files[@]#"$d/"}" | xargs sha256sum | sha256sum | cut -c1-12)
			if [ -n "${proved[$sum]:-}" ]; then
				note flink "$v: the same sql/flink as ${proved[$sum]} (sha256 $sum): proved there"
				continue
			fi
			proved[$sum]=$v
			echo "-- $v: prove-flink.sh ${files[*]#"$d/"}"
			prove/flink/prove-flink.sh "${files[@]}" 2>&1 | tee "$tmp/flink-$v.log"
			rc=${PIPESTATUS[0]}
			total=$(sed -n 's/^ *total: //p' "$tmp/flink-$v.log" | tail -n1)
			if [ "$rc" -ne 0 ]; then
				fail flink "$v: prove-flink.sh exited $rc${total:+ ($total)}"
			else
				note flink "$v: ${total:-no totals printed}"
				while IFS= read -r l; do note "" "  not checkable: ${l#"$d/"}"; done < <(sed -n 's/^ *live: //p' "$tmp/flink-$v.log")
				lock_check "$d" "$v"
			fi
		done
	fi
	note "" "($(elapsed "$t0"))"
fi

# ---- ClickHouse (+ a real broker for the Kafka-engine ingest)
if wants clickhouse; then
	echo "== clickhouse"
	t0=$(date +%s)
	# First: the helper must catch the mistakes of a deliberately broken lab.
	LABGEN_STEPSQL=$tmp/bin/stepsql prove/clickhouse/selftest.sh >"$tmp/clickhouse-selftest.log" 2>&1
	rc=$?
	cat "$tmp/clickhouse-selftest.log"
	case "$rc" in
	0 | 77) ;;
	*) fail clickhouse "prove/clickhouse/selftest.sh exited $rc" ;;
	esac
	LABGEN_STEPSQL=$tmp/bin/stepsql "$tmp/bin/withbroker" prove/clickhouse/prove-clickhouse.sh "${dirs[@]}" 2>&1 |
		tee "$tmp/clickhouse.log"
	rc=${PIPESTATUS[0]}
	total=$(sed -n 's/^clickhouse totals: //p' "$tmp/clickhouse.log" | tail -n1)
	case "$rc" in
	0) note clickhouse "$total" ;;
	77) note clickhouse "SKIPPED: $(sed -n 's/^prove-clickhouse: SKIP: //p' "$tmp/clickhouse.log" | tail -n1)" ;;
	*) fail clickhouse "prove-clickhouse.sh exited $rc${total:+ ($total)}" ;;
	esac
	while IFS= read -r l; do note "" "  not checkable: $l"; done < <(awk '
		/^clickhouse: /{d=$2; sub(".*/", "", d)}
		/^  NOT CHECKABLE /{sub(/^  NOT CHECKABLE /, ""); print d ": " $0}' "$tmp/clickhouse.log")
	note "" "($(elapsed "$t0"))"
fi

# ---- Kafka broker tests
if wants kafka; then
	echo "== kafka"
	t0=$(date +%s)
	go test -count=1 -v ./internal/testkafka/ 2>&1 | tee "$tmp/kafka.log"
	rc=${PIPESTATUS[0]}
	pass=$(grep -c '^--- PASS' "$tmp/kafka.log")
	skips=$(grep -c '^--- SKIP' "$tmp/kafka.log")
	if [ "$rc" -ne 0 ]; then
		fail kafka "go test ./internal/testkafka/ exited $rc"
	elif [ "$skips" -gt 0 ]; then
		note kafka "SKIPPED: $(grep -m1 -o 'testkafka: .*' "$tmp/kafka.log")"
	else
		note kafka "$pass tests passed against a real Kafka broker (internal/testkafka)"
	fi
	note "" "($(elapsed "$t0"))"
fi

echo
echo "== prove summary ($lab: ${rendered[*]})"
printf '%s\n' "${summary[@]}"
if [ "$failed" -ne 0 ]; then
	echo "prove: FAIL"
	exit 1
fi
echo "prove: PASS"
