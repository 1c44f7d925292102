package render

import (
	"fmt"
	"strings"

	"github.com/labgen/labgen/schemas"
)

// shQuote quotes a word for sh.
func shQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// shWord is s as one sh word: as it is when it needs no quotes.
func shWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./") == "" {
		return s
	}
	return shQuote(s)
}

// streamLab is the lab's control script: POSIX sh, docker as the only
// tool on the host (everything else runs inside the containers).
func streamLab(l *schemas.Lab, st *stack) []byte {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	b.WriteString("#!/bin/sh\n")
	b.WriteString(generated(l, "#"))
	w(`# stream-lab: run and check the lab %q with nothing but Docker.
#
#   ./stream-lab compose ARGS...  docker compose with this lab's project and file
#                                 (first start: ./stream-lab compose up -d --build)
#   ./stream-lab smoke            check that everything runs and data flows
#   ./stream-lab batch            run the bounded jobs now and report their results
#   ./stream-lab console          print the query console's address
#   ./stream-lab help             this text
#
# SMOKE_WAIT (seconds, default 120) bounds how long a smoke check waits for
# a service or for data before it fails.
set -u

LAB_DIR=$(CDPATH='' cd -- "$(dirname -- "$0")" && pwd)
SMOKE_WAIT=${SMOKE_WAIT:-120}
FAILED=0

dc() {
	docker compose --project-directory "$LAB_DIR" -f "$LAB_DIR/compose.yaml" --env-file "$LAB_DIR/.env" "$@"
}

pass() { printf 'PASS  %%s\n' "$1"; }
fail() {
	printf 'FAIL  %%s\n' "$1"
	FAILED=$((FAILED + 1))
}
info() { printf 'INFO  %%s\n' "$1"; }

# eventually CMD...: run CMD every 5 seconds until it succeeds, for at most
# SMOKE_WAIT seconds.
eventually() {
	waited=0
	until "$@"; do
		if [ "$waited" -ge "$SMOKE_WAIT" ]; then
			return 1
		fi
		sleep 5
		waited=$((waited + 5))
	done
}

# check DESCRIPTION CMD...: PASS or FAIL, waiting as eventually does.
check() {
	desc=$1
	shift
	if eventually "$@"; then pass "$desc"; else fail "$desc"; fi
}

is_number() {
	case $1 in
	'' | *[!0-9]*) return 1 ;;
	esac
}

# healthy SERVICE: every container of the service runs and is healthy.
healthy() {
	out=$(dc ps --all --format '{{.Service}} {{.State}} {{.Health}}' "$1" 2>/dev/null) || return 1
	[ -n "$out" ] && printf '%%s\n' "$out" | awk '$2 != "running" || $3 != "healthy" { bad = 1 } END { exit bad }'
}

# completed SERVICE: the one-shot service ran and exited 0.
completed() {
	out=$(dc ps --all --format '{{.Service}} {{.State}} {{.ExitCode}}' "$1" 2>/dev/null) || return 1
	[ -n "$out" ] && printf '%%s\n' "$out" | awk '$2 != "exited" || $3 != "0" { bad = 1 } END { exit bad }'
}

# running NAME...: Flink's REST API lists a RUNNING job of one of these names.
running() {
	overview=$(dc exec -T jobmanager curl -fsS http://127.0.0.1:8081/jobs/overview 2>/dev/null | tr '{' '\n') || return 1
	for name in "$@"; do
		if printf '%%s\n' "$overview" | grep -F "\"name\":\"$name\"" | grep -q '"state":"RUNNING"'; then
			return 0
		fi
	done
	return 1
}
`, l.Name)

	s := l.Stack
	if s.MySQL != nil {
		w(`
# mysql_count TABLE: rows of a table of the lab's database (read-only user).
mysql_count() {
	# shellcheck disable=SC2016 # expanded by the container's shell
	dc exec -T mysql sh -c 'MYSQL_PWD="$MYSQL_READER_PASSWORD" mysql -N -B --protocol=TCP -h 127.0.0.1 -u "$MYSQL_READER_USER" -e "SELECT COUNT(*) FROM $0"' %s."$1" 2>/dev/null
}

# has_mysql_rows TABLE: the table has rows.
has_mysql_rows() {
	n=$(mysql_count "$1") && is_number "$n" && [ "$n" -gt 0 ]
}

# grows TABLE: the table gains rows within five seconds.
grows() {
	before=$(mysql_count "$1") && is_number "$before" || return 1
	sleep 5
	after=$(mysql_count "$1") && is_number "$after" || return 1
	[ "$after" -gt "$before" ]
}
`, s.MySQL.Database)
	}
	if s.Kafka != nil {
		b.WriteString(`
# topic_messages TOPIC: the sum of the topic's end offsets.
topic_messages() {
	dc exec -T kafka /opt/kafka/bin/kafka-get-offsets.sh --bootstrap-server ` + KafkaInternal + ` --topic "$1" 2>/dev/null |
		awk -F: '{ n += $NF } END { print n + 0 }'
}

has_messages() {
	n=$(topic_messages "$1") && is_number "$n" && [ "$n" -gt 0 ]
}
`)
	}
	if s.ClickHouse != nil {
		b.WriteString(`
# ch QUERY: run a query in ClickHouse as the lab's ClickHouse user.
ch() {
	# shellcheck disable=SC2016 # expanded by the container's shell
	dc exec -T clickhouse sh -c 'clickhouse-client --user "$CLICKHOUSE_USER" --password "$CLICKHOUSE_PASSWORD" --query "$0"' "$1" 2>/dev/null
}

has_rows() {
	n=$(ch "SELECT count() FROM $1") && is_number "$n" && [ "$n" -gt 0 ]
}
`)
	}
	if s.Flink != nil && (s.Fluss != nil || s.Iceberg != nil) {
		b.WriteString(`
# has_files DIR PATTERN: the warehouse holds a matching file under DIR.
has_files() {
	dc exec -T jobmanager find "$1" -type f -name "$2" 2>/dev/null | grep -q .
}
`)
	}

	if s.Flink != nil {
		b.WriteString(`
# flink_client ARGS...: flink-jobs.sh ARGS in a new container of the
# job-submitter's service (its image, volumes and memory limit; the image's
# entrypoint runs it as the flink user). Not in the jobmanager: a SQL client
# JVM there would not fit the JobManager's memory limit.
flink_client() {
	dc run --rm --no-deps -T job-submitter sh ` + LabMount + `/scripts/flink-jobs.sh "$@"
}
`)
	}

	// smoke: the lab's smoke checks (schemas.Lab.SmokeChecks), each as
	// this script checks its kind.
	b.WriteString("\nsmoke() {\n\techo \"Smoke checks of the lab " + l.Name + " (each waits up to ${SMOKE_WAIT}s):\"\n")
	for _, c := range l.SmokeChecks() {
		smokeScript[c.Kind](&b, st, c)
	}
	b.WriteString(`	if [ "$FAILED" -gt 0 ]; then
		echo "smoke: $FAILED check(s) failed"
		return 1
	fi
	echo "smoke: all checks passed"
}
`)

	// batch
	b.WriteString("\nbatch() {\n")
	lakes := s.Flink != nil && len(lakeTables(l)) > 0 && len(availableJobs(l, schemas.ModeBatch)) > 0
	if lakes {
		// The bounded jobs read lake tables, which are created once.
		b.WriteString("	lake_tables\n")
	}
	batchJobs := 0
	for _, j := range l.Jobs {
		if j.Mode != schemas.ModeBatch {
			continue
		}
		if j.Unavailable != "" {
			w("\tinfo %s\n", shQuote("bounded job "+j.Name+" is unavailable in this stack: it "+j.Unavailable))
			continue
		}
		if s.Flink == nil {
			continue
		}
		batchJobs++
		table, expr, ok := l.ResultVersion(j)
		if ok {
			w("\trun_batch %s %s %s\n", j.Name, shQuote(table), shQuote(expr))
		} else {
			w("\trun_batch %s '' ''\n", j.Name)
		}
	}
	if batchJobs == 0 {
		b.WriteString("\techo \"batch: no bounded job is available in this stack\"\n")
	}
	b.WriteString(`	if [ "$FAILED" -gt 0 ]; then
		echo "batch: $FAILED job(s) failed"
		return 1
	fi
}
`)
	if lakes {
		b.WriteString(`
# lake_tables: create the lake tables their catalogs lack, before any bounded
# job reads them.
lake_tables() {
	if flink_client lake-tables; then
		info "the lake tables exist"
	else
		fail "the lake tables could not be created (see the output above)"
	fi
}
`)
	}
	if batchJobs > 0 {
		b.WriteString(`
# run_batch JOB TABLE EXPR: run a bounded job with Flink's SQL client, wait
# for it to finish, then wait for its result to reach ClickHouse and report
# EXPR over TABLE.
run_batch() {
	job=$1 table=$2 expr=$3
	before=''
	if [ -n "$table" ]; then
		before=$(ch "SELECT toString(v) FROM (SELECT $expr AS v FROM $table)") || before=''
	fi
	echo "Running the bounded job $job ..."
	if ! flink_client run-sql "` + LabMount + `/sql/flink/$job.sql"; then
		fail "bounded job $job failed (see the output above)"
		return
	fi
	if [ -z "$table" ]; then
		pass "bounded job $job finished"
		return
	fi
	if eventually result_changed "$table" "$expr" "$before"; then
		pass "bounded job $job finished; result version $expr in $table is $after (was ${before:-none})"
	else
		fail "bounded job $job finished, but $table in ClickHouse still shows $expr = ${before:-none}"
	fi
}

result_changed() {
	after=$(ch "SELECT toString(v) FROM (SELECT $2 AS v FROM $1)") || return 1
	[ -n "$after" ] && [ "$after" != "$3" ]
}
`)
	}

	// console and dispatch
	b.WriteString("\nconsole() {\n")
	if s.Console != nil {
		w("\techo \"http://127.0.0.1:%d\"\n", s.Console.Port)
	} else {
		b.WriteString("\techo \"this lab runs no console\" >&2\n\treturn 1\n")
	}
	b.WriteString(`}

usage() {
	sed -n '3,/^set -u/p' "$0" | sed -e '/^set -u/d' -e 's/^# \{0,1\}//'
}

case "${1:-help}" in
smoke) smoke ;;
batch) batch ;;
compose)
	shift
	dc "$@"
	;;
console) console ;;
help | -h | --help) usage ;;
*)
	echo "stream-lab: unknown command: $1" >&2
	usage >&2
	exit 2
	;;
esac
`)
	return []byte(b.String())
}

// smokeScript writes the lines of smoke() that check one kind of smoke
// check; labgen smoke implements the same kinds in Go (runtime/runner).
var smokeScript = map[schemas.SmokeKind]func(b *strings.Builder, st *stack, c schemas.SmokeCheck){
	schemas.SmokeServices: func(b *strings.Builder, st *stack, _ schemas.SmokeCheck) {
		for _, name := range st.services() {
			if st.oneShot[name] {
				fmt.Fprintf(b, "\tcheck %s completed %s\n", shQuote("service "+name+" completed"), name)
			} else {
				fmt.Fprintf(b, "\tcheck %s healthy %s\n", shQuote("service "+name+" is healthy"), name)
			}
		}
	},
	schemas.SmokeJob: func(b *strings.Builder, _ *stack, c schemas.SmokeCheck) {
		names := make([]string, len(c.Names))
		for i, n := range c.Names {
			names[i] = shWord(n)
		}
		fmt.Fprintf(b, "\tcheck %s running %s\n", shQuote(c.Name), strings.Join(names, " "))
	},
	schemas.SmokeGrows: func(b *strings.Builder, _ *stack, c schemas.SmokeCheck) {
		fmt.Fprintf(b, "\tcheck %s grows %s\n", shQuote(c.Name), c.Store.Name)
	},
	schemas.SmokeRows: func(b *strings.Builder, _ *stack, c schemas.SmokeCheck) {
		switch c.Store.Kind {
		case schemas.StoreMySQL:
			fmt.Fprintf(b, "\tcheck %s has_mysql_rows %s\n", shQuote(c.Name), c.Store.Name)
		case schemas.StoreKafka:
			fmt.Fprintf(b, "\tcheck %s has_messages %s\n", shQuote(c.Name), shQuote(c.Table))
		case schemas.StoreClickHouse:
			fmt.Fprintf(b, "\tcheck %s has_rows %s\n", shQuote(c.Name), c.Table)
		}
	},
	schemas.SmokeLake: func(b *strings.Builder, _ *stack, c schemas.SmokeCheck) {
		fmt.Fprintf(b, "\tcheck %s has_files %s %s\n", shQuote(c.Name), ComposeFace.Warehouse+"/"+c.Dir, shQuote(c.Pattern))
	},
	schemas.SmokeNote: func(b *strings.Builder, _ *stack, c schemas.SmokeCheck) {
		fmt.Fprintf(b, "\tinfo %s\n", shQuote(c.Name))
	},
}
