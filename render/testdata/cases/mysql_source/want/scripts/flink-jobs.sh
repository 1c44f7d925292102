#!/bin/sh
# Rendered by labgen from the lab "mysql_source". Do not edit: change the lab and render again.
# Runs inside the lab's Flink containers (the image of flink/Dockerfile, with
# this directory mounted at /lab):
#   flink-jobs.sh run-sql FILE   run FILE with Flink's SQL client, after filling
#                                ${MYSQL_CDC_USER} and ${MYSQL_CDC_PASSWORD}
#                                from the environment (.env through compose)
#   flink-jobs.sh submit         submit each streaming job that is not running yet
#   flink-jobs.sh keep           what submit does, then again every 30 seconds,
#                                forever: a job that stopped running (the
#                                JobManager restarted, the restart strategy
#                                gave up) is submitted again, by its name
#   flink-jobs.sh batch-loop     run the bounded jobs, pause after each round
#                                (a pause after each attempt finishes, not a
#                                wall-clock schedule), forever
set -eu

FLINK_HOME=${FLINK_HOME:-/opt/flink}
LAB=${LAB:-/lab}
FLINK_REST=${FLINK_REST:-http://jobmanager:8081}
STREAMING_JOBS="copy"
BATCH_JOBS=""
BATCH_PAUSE=300

log() {
	printf '%s flink-jobs: %s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$*"
}

# pause SECONDS: sleep, in the background, so that a trapped signal ends the
# wait at once (sh runs a trap only after the foreground command ends).
pause() {
	sleep "$1" &
	wait $!
}

# stop_on_signals: the long-running loops run as the container's PID 1,
# which ignores a signal it has no handler for: without one, docker compose
# stop or down waits 10 s and kills the container.
stop_on_signals() {
	trap 'log "stopping"; exit 0' TERM INT
}

# active NAME...: a job of one of these names is running or on its way to
# running.
active() {
	overview=$(curl -fsS --retry 5 --retry-connrefused "$FLINK_REST/jobs/overview" | tr '{' '\n') || return 1
	for name in "$@"; do
		if printf '%s\n' "$overview" | grep -F "\"name\":\"$name\"" |
			grep -Eq '"state":"(INITIALIZING|CREATED|RUNNING|RESTARTING|RECONCILING)"'; then
			return 0
		fi
	done
	return 1
}

# wait_running NAME...: wait up to two minutes for the job to run.
wait_running() {
	tries=0
	until active "$@"; do
		tries=$((tries + 1))
		if [ "$tries" -gt 60 ]; then
			log "$1 did not reach RUNNING"
			return 1
		fi
		pause 2
	done
	log "$1 runs"
}


# replace_all TEXT FROM TO: TEXT with every FROM replaced by TO, literally.
replace_all() {
	_ra_rest=$1
	_ra_out=''
	while :; do
		case $_ra_rest in
		*"$2"*)
			_ra_out=$_ra_out${_ra_rest%%"$2"*}$3
			_ra_rest=${_ra_rest#*"$2"}
			;;
		*) break ;;
		esac
	done
	printf '%s' "$_ra_out$_ra_rest"
}

# sql_subst FILE NAME...: FILE with each ${NAME} replaced by the value of the
# environment variable NAME, escaped by sql_escape (defined by the caller)
# for a single-quoted SQL string literal. Its variables are prefixed: the
# callers' own (file, name, …) must survive it.
sql_subst() {
	_ss_file=$1
	shift
	while IFS= read -r _ss_line || [ -n "$_ss_line" ]; do
		for _ss_name in "$@"; do
			case $_ss_line in
			*"\${$_ss_name}"*)
				_ss_value=''
				eval "_ss_value=\${$_ss_name:-}"
				_ss_line=$(replace_all "$_ss_line" "\${$_ss_name}" "$(sql_escape "$_ss_value")")
				;;
			esac
		done
		printf '%s\n' "$_ss_line"
	done <"$_ss_file"
}

# sql_escape VALUE: VALUE inside a Flink SQL string literal ('' for ').
sql_escape() {
	replace_all "$1" "'" "''"
}

run_sql() {
	if [ ! -r "$1" ]; then
		log "no such SQL file: $1"
		return 1
	fi
	sql=$(mktemp)
	sql_subst "$1" MYSQL_CDC_USER MYSQL_CDC_PASSWORD >"$sql"
	status=0
	"$FLINK_HOME/bin/sql-client.sh" -f "$sql" || status=$?
	rm -f "$sql"
	return "$status"
}

submit() {
	todo=''
	for job in $STREAMING_JOBS; do
		active "$job" || todo="$todo $job"
	done
	for job in $STREAMING_JOBS; do
		if active "$job"; then
			log "$job already runs; not submitting it again"
			continue
		fi
		log "submitting $job"
		run_sql "$LAB/sql/flink/$job.sql"
	done
	for job in $STREAMING_JOBS; do
		wait_running "$job"
	done
}

keep_once() {
	submit
}

# keep: submit what is missing, then check again every 30 seconds, forever.
# /tmp/jobs-submitted (the service's health) exists while every job runs.
keep() {
	stop_on_signals
	while :; do
		if keep_once; then
			touch /tmp/jobs-submitted
		else
			rm -f /tmp/jobs-submitted
			log "a job is missing and could not be submitted; trying again in 30s"
		fi
		pause 30
	done
}

batch_loop() {
	stop_on_signals
	touch /tmp/batch-loop.alive
	while :; do
		if [ -z "$BATCH_JOBS" ]; then
			log "no bounded job is available in this stack"
		fi
		for job in $BATCH_JOBS; do
			log "running $job"
			if run_sql "$LAB/sql/flink/$job.sql"; then
				log "$job finished"
			else
				log "$job failed; the next attempt follows the pause"
			fi
		done
		touch /tmp/batch-loop.alive
		log "pausing ${BATCH_PAUSE}s"
		pause "$BATCH_PAUSE"
	done
}

case "${1:-}" in
run-sql)
	[ $# -eq 2 ] || {
		echo "usage: flink-jobs.sh run-sql FILE" >&2
		exit 2
	}
	run_sql "$2"
	;;
submit) submit ;;
keep) keep ;;
batch-loop) batch_loop ;;
*)
	echo "usage: flink-jobs.sh run-sql FILE | submit | keep | batch-loop" >&2
	exit 2
	;;
esac
