#!/usr/bin/env bash
# record.sh: records the Flink REST and SQL-gateway answers that labgen's
# tests replay (runtime/flinkapi/testdata/flink-<version>/*.json).
#
# 1. builds this recorder with Maven (Flink artifacts from Maven Central, at
#    the version of the pom, the one the lab's stack pins);
# 2. starts a Flink MiniCluster (JobManager + 1 TaskManager, REST endpoint)
#    and a SQL gateway submitting to it, in one JVM on free local ports;
# 3. runs the Go test TestRecordFixtures against them, which drives the same
#    client calls the runtime makes and saves every exchange;
# 4. stops the JVM.
#
# Usage: prove/flink-record/record.sh   (from anywhere; needs java 11+, mvn, go)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
target="$here/target"

if [[ ! -f "$target/classpath.txt" || -n "$(find "$here/pom.xml" "$here/src" -newer "$target/classpath.txt" -print -quit 2>/dev/null)" ]]; then
  echo "flink-record: building (mvn compile) ..." >&2
  mvn -q -B -f "$here/pom.xml" compile >&2
  touch "$target/classpath.txt"
fi

out="$(mktemp)"
fifo="$(mktemp -u)"
mkfifo "$fifo"
# the JVM runs until its stdin closes: hold the fifo open on fd 9
java -cp "$target/classes:$(cat "$target/classpath.txt")" labgen.prove.flinkrecord.Main <"$fifo" >"$out" 2>"$out.err" &
pid=$!
exec 9>"$fifo"
cleanup() {
  exec 9>&- || true
  sleep 2
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  rm -f "$fifo" "$out" "$out.err"
}
trap cleanup EXIT

for _ in $(seq 1 120); do
  grep -q '^READY' "$out" && break
  if ! kill -0 "$pid" 2>/dev/null; then
    cat "$out.err" >&2
    echo "flink-record: the JVM exited before it was ready" >&2
    exit 1
  fi
  sleep 1
done
line="$(grep '^READY' "$out")" || { cat "$out.err" >&2; echo "flink-record: not ready after 120 s" >&2; exit 1; }
echo "flink-record: $line" >&2
version="$(sed -E 's/.*flink=([^ ]+).*/\1/' <<<"$line")"
rest="$(sed -E 's/.*rest=([^ ]+).*/\1/' <<<"$line")"
gateway="$(sed -E 's/.*gateway=([^ ]+).*/\1/' <<<"$line")"

cd "$repo"
FLINK_RECORD_REST="$rest" FLINK_RECORD_GATEWAY="$gateway" FLINK_RECORD_VERSION="$version" \
  go test ./runtime/flinkapi -run '^TestRecordFixtures$' -count=1 -v -timeout 10m
echo "flink-record: fixtures in runtime/flinkapi/testdata/flink-$version/" >&2
