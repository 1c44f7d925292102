#!/usr/bin/env bash
# make demo: the main job on a fresh Debian machine, without Docker.
# Installs what is missing (as root: scripts/install-deps.sh --demo, only
# what the native stack needs, Java 17 or later among it; not the tests'
# tooling), renders the seed lab, brings its native stack up (every
# service a local process), runs all of its experiments, publishes the
# record's page and prints its path. The stack keeps running for
# you to explore (the console at http://127.0.0.1:8088); `bin/labgen down
# out/orders` stops it.
#
# Environment: LAB (default labs/orders), OUT (default out/orders),
# RUN_ARGS (extra arguments of labgen run, e.g. "--experiment 3"),
# ENV_FILE (the lab's passwords, labgen render --env-file; see docs/cli.md).
set -euo pipefail
cd "$(dirname "$0")/.."
LAB=${LAB:-labs/orders}
OUT=${OUT:-out/orders}

if [ "$(id -u)" = 0 ]; then
	# Only what the native stack needs: not the tests' tooling
	# (Kubernetes servers, Chromium, shellcheck, ClickHouse server).
	./scripts/install-deps.sh --demo
else
	missing=()
	for cmd in java mvn python3 mariadbd; do
		if ! command -v "$cmd" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$cmd" ]; then
			missing+=("$cmd")
		fi
	done
	if command -v python3 >/dev/null 2>&1 && ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
		missing+=("python3-venv")
	fi
	if [ ${#missing[@]} -gt 0 ]; then
		echo "demo: missing: ${missing[*]}; run sudo ./scripts/install-deps.sh --demo once (the native stack's needs only)" >&2
		exit 1
	fi
	jv=$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
	jv=${jv#1.}
	if [ -z "$jv" ] || [ "$jv" -lt 17 ]; then
		echo "demo: the native stack needs Java 17 or later; java on PATH is ${jv:-unknown}: install default-jdk-headless (sudo ./scripts/install-deps.sh --demo) or put a newer JDK first on PATH" >&2
		exit 1
	fi
fi

echo "== build"
make --no-print-directory build  # stamps the commit into labgen --version and the record
echo "== validate and render $LAB into $OUT"
bin/labgen validate "$LAB"
bin/labgen render "$LAB" -o "$OUT" ${ENV_FILE:+--env-file "$ENV_FILE"}
echo "== bring the native stack up (the first time downloads ~1.5 GB of jars and Python wheels),"
echo "   let the engines check the lab, submit its jobs and run the experiments"
status=0
# shellcheck disable=SC2086 # RUN_ARGS holds separate arguments
bin/labgen run "$OUT" --native --lab "$LAB" ${RUN_ARGS:-} || status=$?
# The record's page, also after a failed run: it says what failed. Record
# IDs start with their time, so the newest sorts last.
rec=$(find "$OUT/records" -mindepth 1 -maxdepth 1 -type d 2>/dev/null | sort | tail -n 1)
if [ -n "$rec" ]; then
	echo "== publish the record's page"
	bin/labgen record publish "$rec" -o "$OUT/pages"
fi
echo
echo "The lab still runs: the query console is at http://127.0.0.1:8088, Flink's UI at http://127.0.0.1:8081."
echo "bin/labgen down $OUT stops it (--volumes also removes its data)."
exit "$status"
