#!/usr/bin/env bash
# make demo: the main job on a fresh Debian machine, without Docker.
# Installs what is missing (as root), renders the seed lab, brings its
# native stack up (every service a local process), runs all of its
# experiments and prints where the record is. The stack keeps running for
# you to explore (the console at http://127.0.0.1:8088); `bin/labgen down
# out/orders` stops it.
#
# Environment: LAB (default labs/orders), OUT (default out/orders),
# RUN_ARGS (extra arguments of labgen run, e.g. "--experiment 3").
set -euo pipefail
cd "$(dirname "$0")/.."
LAB=${LAB:-labs/orders}
OUT=${OUT:-out/orders}

if [ "$(id -u)" = 0 ]; then
	./scripts/install-deps.sh
else
	for cmd in java mvn python3 mariadbd; do
		if ! command -v "$cmd" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$cmd" ]; then
			echo "demo: $cmd is missing; run ./scripts/install-deps.sh as root (or with sudo) once" >&2
			exit 1
		fi
	done
fi

echo "== build"
make --no-print-directory build  # stamps the commit into labgen --version and the record
echo "== validate and render $LAB into $OUT"
bin/labgen validate "$LAB"
bin/labgen render "$LAB" -o "$OUT"
echo "== bring the native stack up (the first time downloads ~1.5 GB of jars and Python wheels),"
echo "   let the engines check the lab, submit its jobs and run the experiments"
# shellcheck disable=SC2086 # RUN_ARGS holds separate arguments
bin/labgen run "$OUT" --native --lab "$LAB" ${RUN_ARGS:-}
echo
echo "The lab still runs: the query console is at http://127.0.0.1:8088, Flink's UI at http://127.0.0.1:8081."
echo "bin/labgen down $OUT stops it (--volumes also removes its data)."
