#!/bin/sh
# prove-clickhouse.sh DIR… — run rendered labs' ClickHouse SQL on chdb.
#
# Creates (once, and again when requirements.txt changes) a virtualenv in
# prove/clickhouse/.venv with the pinned chdb, then runs prove_clickhouse.py
# on each rendered lab directory. Exit status: 0 all proven, 1 a failure,
# 77 skipped because Python (or its venv module) is missing — unless
# LABGEN_TEST_SERVERS=require, where a missing runtime is a failure (1).
# LABGEN_TEST_SERVERS=off skips (77) without looking.
# PROVE_PYTHON picks the interpreter (default: python3).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
venv="$here/.venv"
mode=${LABGEN_TEST_SERVERS:-}

skip() {
	if [ "$mode" = require ]; then
		echo "prove-clickhouse: $1; LABGEN_TEST_SERVERS=require" >&2
		exit 1
	fi
	echo "prove-clickhouse: SKIP: $1 (set LABGEN_TEST_SERVERS=require to fail instead)"
	exit 77
}

case "$mode" in
"" | require) ;;
off) echo "prove-clickhouse: SKIP: test servers are turned off (LABGEN_TEST_SERVERS=off)"; exit 77 ;;
*) echo "prove-clickhouse: LABGEN_TEST_SERVERS=$mode: want unset, require or off" >&2; exit 2 ;;
esac
[ "$#" -gt 0 ] || { echo "usage: prove-clickhouse.sh RENDERED_LAB_DIR…" >&2; exit 2; }

py=${PROVE_PYTHON:-python3}
command -v "$py" >/dev/null 2>&1 || skip "$py not found (install Debian package python3)"
"$py" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 9) else 1)' ||
	skip "$py is older than 3.9"
"$py" -c 'import venv, ensurepip' >/dev/null 2>&1 ||
	skip "$py has no venv/ensurepip module (install Debian package python3-venv)"

# The venv is reused while requirements.txt and the interpreter are the same.
stamp="$venv/.labgen-stamp"
want="$("$py" -c 'import sys; print(sys.version)' | head -n1) $(cksum <"$here/requirements.txt")"
if [ ! -x "$venv/bin/python" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
	echo "prove-clickhouse: creating $venv (pip install -r requirements.txt)"
	rm -rf "$venv"
	"$py" -m venv "$venv"
	"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-input \
		-r "$here/requirements.txt"
	printf '%s\n' "$want" >"$stamp"
fi
exec "$venv/bin/python" "$here/prove_clickhouse.py" "$@"
