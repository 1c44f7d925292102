#!/usr/bin/env bash
# prove-flink.sh [OPTIONS] FILE.sql...
# Builds the prover if needed (Maven, offline when the local repo is warm) and
# runs rendered Flink SQL files through Flink's own parser and planner.
# Extra Maven arguments (e.g. -Dflink.version=1.20.1) go in PROVE_FLINK_MVN_ARGS;
# a change of them triggers a rebuild.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
target="$here/target"
stamp="$target/.build-args"
mvn_args=(${PROVE_FLINK_MVN_ARGS:-})

needs_build() {
  [[ -f "$target/classpath.txt" && -f "$target/classes/extra-classpath.txt" \
     && -f "$target/classes/labgen/prove/flink/Main.class" && -f "$stamp" ]] || return 0
  [[ "$(cat "$stamp")" == "${mvn_args[*]:-}" ]] || return 0
  # any source or the pom newer than the last build
  [[ -n "$(find "$here/pom.xml" "$here/src" -newer "$stamp" -print -quit)" ]] && return 0
  return 1
}

if needs_build; then
  echo "prove-flink: building (mvn compile) ..." >&2
  mkdir -p "$target"
  log="$target/build.log"
  # offline first (fast when ~/.m2 is warm), online if something is missing
  if ! mvn -q -o -f "$here/pom.xml" "${mvn_args[@]}" compile >"$log" 2>&1; then
    if ! mvn -q -f "$here/pom.xml" "${mvn_args[@]}" compile >"$log" 2>&1; then
      cat "$log" >&2
      echo "prove-flink: build failed" >&2
      exit 2
    fi
  fi
  printf '%s' "${mvn_args[*]:-}" >"$stamp"
fi

cp="$target/classes:$(cat "$target/classpath.txt")"
while IFS= read -r jar; do
  [[ -n "$jar" ]] && cp="$cp:$jar"
done <"$target/classes/extra-classpath.txt"

# quiet logs: connectors log at WARN about things that do not matter here;
# PROVE_FLINK_LOG=warn|info shows them.
exec java ${PROVE_FLINK_JAVA_OPTS:-} \
  -Dlog4j.configurationFile=log4j2-prove.properties \
  -Dprove.log="${PROVE_FLINK_LOG:-error}" \
  -cp "$cp" labgen.prove.flink.Main "$@"
