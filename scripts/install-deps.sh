#!/bin/sh
# Installs what labgen's tests and its native stack need on a fresh Debian
# machine (as root): MariaDB, PostgreSQL and ClickHouse servers (the tests start
# throwaway instances on free ports; the native stack runs MariaDB as its
# MySQL), shellcheck (checks the rendered stream-lab script), Chromium (the
# console's browser test), Java, Maven and Python's venv (the provers and
# the native stack's engines), and the Go modules. Safe to run again.
set -eu
if [ "$(id -u)" != 0 ]; then
	echo "install-deps: run as root (or with sudo): it installs Debian packages" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends \
	mariadb-server mariadb-client postgresql clickhouse-server \
	shellcheck chromium ca-certificates >/dev/null
# The provers (make prove) run Flink's planner and Kafka on the JVM through
# Maven, and ClickHouse through chdb in a Python venv. Machines of this kind
# come with Java, Maven and Python; install Debian's where they are missing.
command -v java >/dev/null 2>&1 || apt-get install -y -qq --no-install-recommends default-jdk-headless >/dev/null
command -v mvn >/dev/null 2>&1 || apt-get install -y -qq --no-install-recommends maven >/dev/null
command -v python3 >/dev/null 2>&1 || apt-get install -y -qq --no-install-recommends python3 >/dev/null
# Debian splits venv's pip bootstrap (ensurepip) into python3-venv.
python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || apt-get install -y -qq --no-install-recommends python3-venv >/dev/null
# The packages start system-wide servers on the default ports; the tests
# use their own instances, so stop these where a service manager runs.
for svc in mariadb postgresql clickhouse-server; do
	service "$svc" stop >/dev/null 2>&1 || true
done
go mod download
echo "install-deps: done"
