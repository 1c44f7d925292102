package schemas

// refRun describes jobs, presets, experiments, their steps, controls, the
// step kinds and the expressions of the lab language (see refText).
var refRun = map[string]string{
	// Sections.
	"kinds": "A step does exactly one thing, selected by the one kind attribute it sets (a query step by `query` or by `sql`): " +
		"a step that sets none is an error (\"Step does nothing\"), and so is one that sets two (\"Step does several things\"); " +
		"the attributes of one kind (`max_rows`, `engine`, `compare` of a query step) are refused on a step of another kind.\n\n" +
		"A `query`, `kafka`, `flink`, `usage` or `lab` step gives a **result**: it can `capture`, `sample` and `expect` over it, and a " +
		"`wait` can re-run it (`rerun = step.NAME`) until a condition over its result holds, or sample it for a while. A wait " +
		"that re-runs a step has that step's result, from its last run (a wait itself is never re-run). `compose`, `note` and " +
		"a plain `wait = \"30s\"` give none: the loader refuses `capture` and `sample` on them, and an `expect` there is " +
		"recorded with the error \"the step has no result to check\".\n\n" +
		"What `result` is, per kind (lists are HCL tuples: index, `for` and `length` work on them as on lists):\n\n" +
		"- `query`: `{ columns, rows, row_count, truncated, elapsed_ms }`. `rows` is a list of objects, one attribute per " +
		"column (a repeated column name gets `_2`, `_3`); integers and decimals are exact numbers, SQL NULL is `null`, dates " +
		"and times are text such as `\"2026-11-29 10:00:01.123\"`. At most `max_rows` rows are there (`truncated` says more existed).\n" +
		"- `kafka`: `{ topic, messages, count, matched, scanned, truncated, timed_out }`, each message " +
		"`{ partition, offset, timestamp, key, value, tombstone }`; key and value are text (bytes that are not UTF-8 as `0x…`), " +
		"`value` is `null` for a tombstone, `timestamp` is UTC text; `jsondecode(m.value)` reads a JSON value. With " +
		"`offsets = true`: `{ topic, partitions = [{ partition, start, end }], end, records }`.\n" +
		"- `flink` with a `job`: the job's facts, `{ job_id, name, state, restarts, restarts_in_experiment, start_time, vertices = [{ name, status, " +
		"records_in, records_out, backpressure, busy, backpressure_level }], backpressure = { max, busy_max, level }, " +
		"checkpoints = { completed, failed, in_progress, restored, latest_id, latest_time, state_size, restored_id }, exceptions = " +
		"[{ time, name, task, message }] }` (`restarts` since the job was submitted; `restarts_in_experiment` since the " +
		"experiment began, before any control was applied to it, so that a restart an earlier experiment caused is not " +
		"counted again; at most 10 exceptions, newest first; `state_size` is the latest completed " +
		"checkpoint's whole state in bytes, `null` before the first); without a job: " +
		"`{ jobs = [one such object per job], count }`. The backpressure facts are `null` unless the step shows " +
		"`\"backpressure\"`, and while Flink has no metrics of a vertex yet: a vertex's `backpressure` is the share of time " +
		"(0 to 1) its busiest subtask was blocked by its output (Flink's `backPressuredTimeMsPerSecond` / 1000), `busy` the " +
		"share it was processing, `backpressure_level` Flink's `ok` (at most 0.1), `low` (at most 0.5) or `high`; the job's " +
		"`max` and `busy_max` are the highest of its vertices', `level` the worst.\n" +
		"- `usage`: `{ at_ms, cpu_s = { SERVICE = seconds }, rss_mb = { SERVICE = MiB } }`: when it read (milliseconds " +
		"since the Unix epoch), then each running service's CPU time since it started (user and system, its whole process " +
		"group) and resident memory; a service that is not running is absent.\n" +
		"- `lab = \"smoke\"`: `{ passed, failed, checks = [{ name, passed, detail }] }`; `lab = \"batch\"`: `{ passed, failed, " +
		"jobs = [{ name, job_id, state, duration_ms, error, result_before, result_after }] }`.\n\n" +
		"A sampling step that names nothing to `sample` keeps its kind's defaults from every run: of a query with one row, " +
		"each of its columns, else `rows` (the row count); of kafka, `count` and `end`; of flink, `state`, `restarts`, " +
		"`checkpoints` (completed) and each vertex's `records_in` and `records_out`, and with `\"backpressure\"` shown each " +
		"vertex's `backpressure` and `busy` (without a job, `jobs`); of usage, `cpu_s`; of lab, `passed` and `failed`.",

	"expressions": "Attribute values are HCL expressions. Most are evaluated when the lab is loaded, with `var.NAME` (the " +
		"lab's variables) and the functions below. A few name another block of the lab instead of computing a value, and " +
		"must be written as that bare reference:\n\n" +
		"- `table.NAME` in a job's `reads` and `writes` (and where a producer names its table),\n" +
		"- `job.NAME` in `needs` (of an experiment or a preset), a control's `cancel` and a flink step's `job`,\n" +
		"- `preset.NAME` in a query step's `query`,\n" +
		"- `control.NAME` in an expect's `detects`,\n" +
		"- `step.NAME` in a wait's `rerun` (an earlier step of the same experiment),\n" +
		"- `producer.NAME.field.FIELD`, `producer.NAME.follow.FOLLOW.delay` or `producer.NAME.follow.FOLLOW.field.FIELD` in a " +
		"query step's `compare`.\n\n" +
		"An undeclared name is an error that suggests the closest declared one.\n\n" +
		"**Run-time expressions.** A step's `sql` and kafka `key`, and its `capture`, `sample`, `expect` `condition` and " +
		"wait `until`, are kept as source when they use a run's values, and evaluated by `labgen run`:\n\n" +
		"- `step.STEP.NAME` is the value NAME captured by an earlier step STEP of the same experiment, " +
		"`experiment.EXP.STEP.NAME` one captured in experiment EXP, which must have a lower number. The loader checks that the " +
		"step exists, comes earlier and captures that name. A step whose `sql`, `key`, re-run step or `until` needs a value " +
		"that was not captured is skipped, saying which value and why; an expectation that needs one is recorded with that error.\n" +
		"- `result` is the step's own result (its shape per kind is under Step kinds), in `capture`, `sample`, `condition` " +
		"and `until` only: `sql` and `key` run before there is one.\n" +
		"- `samples` is, in the `capture` and `expect` of a sampling step (a wait that re-runs a step, or a step with " +
		"`sample`) and in a wait's `until`, the list of its runs so far: `[{ ms, NAME = value, … }]`, `ms` the milliseconds " +
		"since the step started, one attribute per sampled name, and `error` on a run that failed.\n" +
		"- `var.NAME` is the lab's variable there as well.\n\n" +
		"The loader checks a run-time expression's function calls too: each must call one of the functions below other than " +
		"`file`, with a number of arguments that function takes, or `labgen validate` reports the call as an error instead " +
		"of the run failing when it gets there.\n\n" +
		"SQL is an HCL string template: `${…}` puts a value into it as text. Numbers go in as written; a string goes in bare, " +
		"so quote it with `sql_string(…)`, which also turns null into NULL. A heredoc (`<<-SQL … SQL`) keeps long SQL readable. " +
		"The runbook shows a run-time template with each captured value as a placeholder, such as `<order_id from step pick>`. " +
		"From labs/orders:\n\n" +
		"```hcl\n" +
		"step \"source_total\" {\n" +
		"  engine = \"mysql\"\n" +
		"  sql    = \"SELECT COUNT(*) AS n, MAX(order_id) AS max_id FROM orders\"\n" +
		"  capture = {\n" +
		"    n      = result.rows[0].n\n" +
		"    max_id = result.rows[0].max_id\n" +
		"  }\n" +
		"}\n\n" +
		"step \"serving_total\" {\n" +
		"  engine = \"clickhouse\"\n" +
		"  sql    = \"SELECT count() AS n FROM analytics.dwd_order_wide FINAL WHERE order_id <= ${step.source_total.max_id}\"\n" +
		"}\n\n" +
		"step \"caught_up\" {\n" +
		"  wait = {\n" +
		"    rerun    = step.serving_total\n" +
		"    until    = result.rows[0].n >= step.source_total.n\n" +
		"    interval = \"1s\"\n" +
		"    timeout  = \"90s\"\n" +
		"  }\n" +
		"  sample = {\n" +
		"    orders_served = result.rows[0].n\n" +
		"  }\n\n" +
		"  expect {\n" +
		"    condition = result.rows[0].n == step.source_total.n && samples[length(samples) - 1].ms <= 30000\n" +
		"    message   = \"Measured: within 30 s ClickHouse serves exactly the orders MySQL held (none missing, none extra after deduplication).\"\n" +
		"    detects   = [control.join_cancelled]\n" +
		"  }\n" +
		"}\n" +
		"```\n\n" +
		"`for` expressions, `try` and `jsondecode` read lists of rows and messages: " +
		"`length([for v in result.vertices : v if v.status != \"RUNNING\"]) == 0`, " +
		"`key = jsonencode({ order_id = step.pick.order_id })`, " +
		"`WHERE o.created_at > ${sql_string(step.now.now)}`.",

	// job
	"job": "A Flink SQL job: a `SELECT` whose rows labgen inserts into every store of the written table that Flink can " +
		"write (" + joinList(sinkKinds(), "and") + "). It is rendered as `sql/flink/NAME.sql`: `SET` statements, the definitions of the " +
		"tables it reads and writes, then the inserts. A table named plainly in the query is read from its MySQL or " +
		"PostgreSQL store (CDC; JDBC in a batch job) or else its Kafka store; a lake table is named " +
		codeList(lakeRefs("<database>", "<table>"), "or") + ". `labgen run` submits each streaming " +
		"job that is not running through the SQL gateway before the experiments; batch jobs run in a `lab = \"batch\"` step " +
		"(and in the stack's `batch_loop`). A job whose stores or Flink the stack leaves out is unavailable: it is not " +
		"rendered or submitted, and the presets and experiments that need it are unavailable too.",
	"job.description": "A string: what the job computes, in the runbook's list of Flink jobs and atop its rendered SQL file.",
	"job.mode": "`\"streaming\"` or `\"batch\"`. A streaming job runs continuously (with the stack's state TTL); a " +
		"batch job is bounded, runs with `table.dml-sync`, and may not read an upsert Kafka topic by its plain name (declare " +
		"the store `append_only`, or read a lake store).",
	"job.query": "A string: the job's Flink SQL `SELECT`, usually `file(\"jobs/NAME.sql\")`; a trailing `;` is dropped. " +
		"It is exactly one statement, split as Flink's SQL client splits a script (on semicolons outside quotes and " +
		"comments): the rendered job runs `INSERT INTO` the written table followed by the query, so a second statement " +
		"would run on its own, and is an error at its line; so is a query of nothing but blanks and comments. " +
		"The loader checks that every table it names is in `reads` (lake tables through the lake catalogs only) and that its " +
		"output columns, each named once, are exactly the written table's (a `*` skips this); it warns of output types " +
		"Flink would not insert without a `CAST`, of bare reserved words and of a table read but never named.",
	"job.reads": "A list of table references (`[table.orders, table.payments]`): the tables the query reads, whose " +
		"definitions the rendered job declares. Each must be declared and have a store Flink can read the way the query names it.",
	"job.settings": "A map of strings, rendered as `SET 'key' = 'value'` statements (sorted by key) after labgen's own " +
		"(`execution.runtime-mode`, `pipeline.name`, `parallelism.default`, and `table.dml-sync` or `table.exec.state.ttl`).",
	"job.writes": "A table reference (`table.dwd_order_wide`): the table the job's rows are inserted into, in every " +
		"one of its " + joinList(sinkKinds(), "and") + " stores. A table without any of these stores is an error.",

	// preset
	"preset": "A named read-only query: rendered as `sql/presets/ENGINE/NAME.sql`, offered in the console and listed in " +
		"the runbook, and run by a query step with `query = preset.NAME`. Its SQL is evaluated when the lab is loaded (it " +
		"may use `var`, not captured values). A preset whose engine the stack does not run, or which needs an unavailable " +
		"job, is unavailable, and so is every experiment that runs it.",
	"preset.description": "A string: what the query shows, beside its title in the runbook and the console.",
	"preset.engine":      "`\"mysql\"`, `\"postgres\"` or `\"clickhouse\"`, the engine the query runs on.",
	"preset.needs": "A list of job references (`[job.hourly_sales]`): jobs whose output the query reads. Each must be " +
		"declared; the preset is unavailable when one of them is.",
	"preset.sql": "A string, usually `file(\"presets/NAME.sql\")`: a single read-only statement, checked when the lab " +
		"is loaded (\"Preset is not read-only\"); reserved words used bare as names are warned of for MySQL. A table it " +
		"names after FROM or JOIN must be one of the lab's with a store of `engine` (\"Query reads an undeclared table\"); " +
		"see `experiment.step.sql`.",
	"preset.title": "A string: the preset's name in the runbook and the console (its block name when left out).",

	// experiment
	"experiment": "A question asked of the running lab, answered by its `step` blocks, which `labgen run` runs in order " +
		"(`--experiment N` or `NAME` selects some). Experiments run, and appear in the runbook, in the order of their " +
		"`number`; an experiment needs at least one step. One that needs a component, job or preset the stack leaves out, " +
		"or values captured by an unavailable experiment, is unavailable: the runbook says so and a run records it as " +
		"skipped. The record is written after every step, so an interrupted run keeps what finished and `--resume` goes on " +
		"from there, with the captured values restored.",
	"experiment.expected": "A string: what the lab is built to show, printed as **Expected** after the steps in the runbook " +
		"and copied into the record; it states no result of a run.",
	"experiment.interpretation": "A string: how to read the outcome, printed as **Interpretation** after the steps in the " +
		"runbook and copied into the record.",
	"experiment.intro": "A string shown before the steps in the runbook, usually what to do and why; kept in the record.",
	"experiment.needs": "A list of job references (`[job.lake_audit]`) the experiment relies on without naming them in a " +
		"step: each must be declared, and the experiment is unavailable when one of them is.",
	"experiment.number": "A whole number, at least 0 and unique in the lab: the experiment's order, its heading " +
		"(`### 02 …`) and what `--experiment 2` selects. An experiment may use captures only of experiments with a lower number.",
	"experiment.question": "A string: the question the experiment answers, shown as **Question** in the runbook and kept in the record.",
	"experiment.record": "A list of strings: what the reader should write down, shown as **Record:** in the runbook and " +
		"copied into the record.",
	"experiment.title": "A string: the experiment's heading in the runbook and the record.",

	// step
	"experiment.step": "One action of an experiment, named by a lowercase label unique in it. It sets exactly one kind " +
		"attribute (see [Step kinds](#step-kinds)) plus what every step may take: `title`, `text`, `capture`, `sample`, " +
		"`timeout`, `on_failure` and `expect` blocks. At run time a step runs, then its captures and expectations are " +
		"evaluated over its result, and it is recorded as `ok`, `error`, `timed_out` (a wait whose condition did not hold in " +
		"time) or `skipped` (a captured value it needs is missing, or an earlier step stopped the experiment). Only `error` " +
		"counts as a failed step (`labgen run` exits 3).",
	"experiment.step.capture": "An object of `NAME = expression` (lowercase names, each once), evaluated over the step's " +
		"`result` (and `samples`) unless the step failed; only a step with a result may capture. A capture that cannot be " +
		"evaluated, or is null or empty (a blank string, an empty list or object), fails the step, and the later steps that " +
		"need it are skipped. The values are kept in the record and read as `step.STEP.NAME`, or `experiment.EXP.STEP.NAME` " +
		"in a later experiment. A capture has the type of its expression: a number, a string, a bool, `[for …]` a tuple, " +
		"`{ for … : key => value }` and `{ name = … }` an object, which `length`, `keys`, `values` and `lookup` read as " +
		"they read a map.",
	"experiment.step.compare": "An object `{ declared, column }` on a query step: the values of one column of its rows, " +
		"binned (about √n bins, 5 to 30), beside what the producer's declared distribution expects of as many values. The " +
		"step's table becomes the bins and record.json keeps the values; rows whose value is not a number are left out, and " +
		"a column the query does not return fails the step.",
	"experiment.step.compare.column": "Required string: the query's output column whose values are compared.",
	"experiment.step.compare.declared": "Required reference to a producer's distribution: `producer.NAME.field.FIELD`, " +
		"`producer.NAME.follow.FOLLOW.delay` (in seconds) or `producer.NAME.follow.FOLLOW.field.FIELD`. It must be a " +
		"continuous law: uniform, normal, lognormal or exponential.",
	"experiment.step.compose": "Acts on one service of the stack: `\"ACTION SERVICE\"` (`compose = \"stop taskmanager\"`) or " +
		"`{ action, service }`. It runs through whatever runs the stack (docker compose, the native supervisor, kubectl) and " +
		"gives no result. Default timeout 3m.",
	"experiment.step.compose.action": "`\"stop\"`, `\"start\"`, `\"restart\"`, `\"pause\"` or `\"unpause\"`. " +
		"`pause` freezes the service's processes (docker compose pause; SIGSTOP to the native process group) until " +
		"`unpause`: they stay alive and are not restarted, and what reads from them stalls. Kubernetes has no pause " +
		"and refuses both at run time.",
	"experiment.step.compose.service": "The service's name in the lab's stack; an unknown one is an error, and one whose " +
		"component the stack leaves out makes the experiment unavailable.",
	"experiment.step.engine": "With `sql`, required: `\"mysql\"`, `\"postgres\"` or `\"clickhouse\"`. Refused beside " +
		"`query` (the preset names its engine); the experiment is unavailable when the stack does not run the engine.",
	"experiment.step.expect": "An expectation: a condition over the step's result that the lab is built to make hold. " +
		"After the step (and its captures) it is evaluated and recorded as held or not held, or with an error when the step " +
		"has no result, a captured value it uses is missing, or the condition is not true or false. An expectation never " +
		"stops or fails anything; `labgen run --strict` exits 3 when one did not hold. In a lab that declares controls, each " +
		"expectation names the controls it must detect (`detects`) or says why it is a sanity check (`sanity`); one that " +
		"does neither is warned of.",
	"experiment.step.expect.condition": "An expression that is `true` or `false`, over `result`, `samples` (in a " +
		"sampling step), captured values and `var`.",
	"experiment.step.expect.detects": "A list of control references (`[control.join_cancelled]`): the controls under which " +
		"the expectation must stop holding. Each must be declared. `labgen run --controls` runs the experiment again under " +
		"each and records a verdict: \"shown able to fail\" (its condition was false on a result that exists), \"blind\" " +
		"(it held under the control too), \"not checkable\" (the step was skipped, failed or returned nothing, or the " +
		"condition could not be evaluated: no detection) or \"not shown\". The record shows, per verdict, each part of " +
		"the condition (`a && b`) that turned false and the values it compared. Name the controls aimed at the claim: " +
		"a mutant for a wrong value, a pause for a bound on lag, not only a kill switch that empties every result.",
	"experiment.step.expect.message": "A string: what holds, in words; the runbook lists it as **Expect:** and the " +
		"record reports it with its outcome.",
	"experiment.step.expect.sanity": "A string: why no control applies, for an expectation that checks the lab rather than " +
		"the pipeline; its verdict is \"sanity check\". Not together with `detects`.",
	"experiment.step.flink": "Reads Flink's REST API: `flink = { job = job.NAME, show = [...] }` gives one job's facts, " +
		"`flink = {}` those of every job on the cluster (at most 20). The job is found on the cluster by its " +
		"`pipeline.name`, else by the ID this run submitted. The experiment is unavailable when the stack has no Flink or " +
		"the job is unavailable. Default timeout 1m.",
	"experiment.step.flink.job": "A job reference (`job.order_wide`) to a declared job; without it the step reads every job.",
	"experiment.step.flink.show": "A list of `\"state\"`, `\"vertices\"`, `\"checkpoints\"`, `\"restarts\"`, " +
		"`\"exceptions\"` (default: all five) and `\"backpressure\"`: what the record's tables show. `result` always " +
		"holds the first five's facts; `\"backpressure\"` (never a default: one more request per vertex) also asks each " +
		"vertex's backpressure (`GET /jobs/ID/vertices/VERTEX/backpressure`), which fills its `backpressure`, `busy` and " +
		"`backpressure_level` and the job's `backpressure` in `result`, and adds their columns to the vertices' table.",
	"experiment.step.usage": "Reads what the stack's services have used so far: `usage = {}` (every service that runs) " +
		"or `usage = { services = [\"taskmanager\", \"mysql\"] }`. Only the native stack answers it (each service is a " +
		"process group whose CPU time and resident memory labgen sums from `/proc`); with Docker or Kubernetes the step " +
		"is skipped, saying so, and the measures that read it are not measured (the run does not fail for it). Two such steps around a window give each service's share of a core over it: the difference of " +
		"their `cpu_s` over the difference of their `at_ms`. A wait may re-run it, sampling CPU time as it grows. Default " +
		"timeout 1m.",
	"experiment.step.usage.services": "A list of the stack's service names (`\"taskmanager\"`, `\"mysql\"`); an unknown " +
		"one is an error, and one whose component the stack leaves out makes the experiment unavailable. Without it, every " +
		"service that runs.",
	"experiment.step.kafka": "Reads a topic through the Kafka protocol: every message of one `key` in all partitions, " +
		"the last `tail` messages, or with `offsets = true` each partition's start and end offsets. A read stops at the end " +
		"offsets of when it started, or at its `timeout`.",
	"experiment.step.kafka.key": "A string expression, often with captured values (`jsonencode({ order_id = " +
		"step.pick.order_id })`): the step keeps the messages whose key is these bytes or, for a JSON key, the same JSON value " +
		"written otherwise (spacing, the order of fields, a SQL timestamp with or without a zero fraction: ClickHouse writes " +
		"`15:13:10.000`, Flink's JSON format `15:13:10`).",
	"experiment.step.kafka.max": "Whole number, at least 1, default 50: the most messages kept, the most recent; " +
		"`result.truncated` says more matched.",
	"experiment.step.kafka.offsets": "`true` or `false` (default `false`): with `true` the step reads no messages but each " +
		"partition's start and end offsets, and `result.end` sums the end offsets. Not together with `key`, `tail` or `max`.",
	"experiment.step.kafka.tail": "Whole number, at least 1: read the topic's last N messages; 10 when there is no `key`. " +
		"With a `key` it is not used.",
	"experiment.step.kafka.timeout": "A duration, default `\"10s\"`: the read's time limit. A read that reaches it keeps " +
		"what it found and sets `result.timed_out`; the step does not fail for it.",
	"experiment.step.kafka.topic": "Required string: the topic, which must be the kafka store of a table of the lab. The " +
		"experiment is unavailable when the stack runs no Kafka.",
	"experiment.step.lab": "`\"smoke\"` runs the lab's smoke checks (each failing check tried again every 5 s for up to 2 " +
		"minutes; default timeout 3m); `\"batch\"` runs every available batch job through the SQL gateway, one after " +
		"another, each until it finishes and, when ClickHouse serves its table, until the new result arrives there (default " +
		"timeout 15m; the experiment is unavailable without Flink). The step fails when a check or job fails.",
	"experiment.step.max_rows": "Whole number, at least 1, default 20 (query steps only): the most rows the query keeps, " +
		"in `result.rows` and in the record; the rows' data is also capped at 256 KiB. `result.truncated` says more existed.",
	"experiment.step.note": "A string for the reader, shown as a quote in the runbook and kept in the record. The step does " +
		"nothing and has no result.",
	"experiment.step.on_failure": "`\"continue\"` (default) or `\"stop\"`: when a step with `\"stop\"` ends with an error, " +
		"the experiment's remaining steps are recorded as skipped. A timed-out wait is not an error.",
	"experiment.step.query": "A preset reference (`query = preset.source_counts`): the step runs that declared preset's " +
		"SQL on its engine. Not together with `sql` or `engine`.",
	"experiment.step.sample": "An object of `NAME = expression` over `result`, kept from every run as a time series in the " +
		"record: each run of a wait that re-runs a step, or the one run of another step with a result. A value may be an " +
		"object (`rows = { mysql_orders = result.rows[0].n }`), charted as one quantity with a line per key. The step's " +
		"`capture` and `expect` see the runs as `samples`. A wait that re-runs a step samples its kind's defaults without " +
		"`sample`.",
	"experiment.step.sql": "A string template of SQL run on `engine`, which may use `var` and captured values but not " +
		"`result`. It must be a single read-only statement: checked when the lab is loaded if it needs no captured value, " +
		"else after the values are filled in, when SQL that does not only read is not run and fails the step. Each table " +
		"it names after FROM or JOIN must be one of the lab's with a store of `engine`, written plain or qualified as the " +
		"rendered DDL creates it (`shop.orders`, `public.payments`, `analytics.dwd_order_wide`, and the `_queue` and `_mv` " +
		"of a table ClickHouse ingests from Kafka), when the lab is loaded (\"Query reads an undeclared table\"). The " +
		"servers' own schemas (information_schema, mysql, performance_schema, sys, pg_catalog and `pg_*`, system), " +
		"common table expressions, subqueries, table functions and SQL the check cannot read reliably (backslash " +
		"escapes, dollar quotes, `#` comments, a statement other than SELECT or WITH) are left to the engine check.",
	"experiment.step.text": "A string: what to do or look at, shown after the step's title in the runbook and kept in the record.",
	"experiment.step.timeout": "A duration bounding the step, by default 1m for query and flink steps, 3m for compose and " +
		"`lab = \"smoke\"`, 15m for `lab = \"batch\"`. Kafka steps use their own `timeout`, and a wait runs its step with " +
		"that step's; while a control is on it is capped at `--control-cap`.",
	"experiment.step.title": "A string: the step's heading in the runbook (its name when left out); kept in the record.",
	"experiment.step.wait": "`wait = \"30s\"` pauses for that long. `wait = { rerun = step.NAME, until = CONDITION }` " +
		"re-runs an earlier step every `interval` until the condition holds over its result, for at most `timeout`; " +
		"`wait = { rerun = step.NAME, \"for\" = \"20s\" }` re-runs it for that long and keeps every run as a sample. A run " +
		"whose error waiting cannot change (SQL that cannot be filled in or does not only read, no endpoint, an error the " +
		"engine reports as final) ends the wait at once with that error. A wait re-running a `flink` step of one job stops, timed out, at the run that finds the job FINISHED, FAILED or CANCELED (states Flink never leaves), and says so. The wait's result is its last run's.",
	"experiment.step.wait.for": "A duration, written `\"for\"` (a bare `for` starts a for expression). With `rerun`: re-run " +
		"the step for that long, without a condition; the wait fails only when every run failed, or at once on an error waiting cannot change. Without `rerun`: the same " +
		"as `wait = \"…\"`. Not together with `until`.",
	"experiment.step.wait.interval": "A duration, default `\"5s\"` (at least 100 ms at run time): the pause between runs " +
		"of a re-running wait.",
	"experiment.step.wait.rerun": "A step reference (`step.serving_total`) to an earlier step of the same experiment, of a " +
		"kind a wait may re-run; it needs `until` or `\"for\"`.",
	"experiment.step.wait.timeout": "A duration, default `\"2m\"` (with `until` only): when no run satisfied the " +
		"condition by then, the step is recorded as `timed_out` with the last run's output (an error only when that run " +
		"failed). Capped at `--control-cap` while a control is on.",
	"experiment.step.wait.until": "A condition that is `true` or `false` over the re-run step's `result`, `samples` and " +
		"captured values, checked after every run that succeeded; needs `rerun`. One that cannot be evaluated fails the step.",

	// control
	"control": "A negative control: a sabotage of the running lab, made of actions it can undo. Three kinds: a kill " +
		"switch (`stop` services, `cancel` streaming jobs), a fault that keeps the pipeline alive but slow (`pause` " +
		"services, optionally thawed after `pause_for`, or a link slowed with `latency`), and a mutant (`job` with `replace`, `query` or `settings`: the job run " +
		"with SQL or settings wrong in one way the lab names). It does nothing in a plain run. `labgen run --controls`, after the experiments, applies each " +
		"control once (a control with `pause_for` once per experiment), runs again each experiment that finished and whose expectations name it in `detects` (only the " +
		"steps with expectations that name it, the steps they depend on, and the steps up to the last of them that act on " +
		"the stack or let time pass (every wait, as on the healthy run); waits and " +
		"step timeouts capped at `--control-cap`, default 35s), then undoes it: thaws paused services, starts stopped ones again in reverse order, " +
		"cancels a mutant (runs a bounded job's own SQL again), submits again every streaming job that no longer runs and waits until they run. An expectation that held on the " +
		"healthy run and was false under the control on a result that exists is \"shown able to fail\"; one that held under it too is \"blind\"; " +
		"a skipped, failed or empty step, or an error evaluating the condition, is \"not checkable\". With `--strict` a blind " +
		"expectation exits 3, and so does one that no control showed able to fail. A control does at least one thing.",
	"control.cancel": "A list of job references (`[job.order_wide]`), each a declared streaming job: cancelled through " +
		"Flink's REST API (waiting up to a minute for it to stop), and submitted again to undo.",
	"control.stop": "A list of service names of the lab's stack (`[\"taskmanager\"]`): stopped in order, each through " +
		"whatever runs the stack, and started again in reverse order to undo. An unknown service is an error.",
	"control.pause": "A list of service names (`[\"taskmanager\"]`): frozen, alive but making no progress (SIGSTOP to the " +
		"process group on the native stack, `docker compose pause` on compose; Kubernetes has no pause, and such a control " +
		"fails to apply there), and thawed to undo. A pipeline behind a paused service falls behind instead of stopping.",
	"control.pause_for": "A duration (`\"40s\"`): thaw the paused services that long after the control was applied, while " +
		"the experiment still runs, so that the rows arrive, late: what shows a bound on lag able to fail. The control is " +
		"then applied anew for each experiment that names it. Needs `pause`.",
	"control.job": "A job reference (`job.order_wide`) with `replace`, `query` or `settings`: the job's mutant, " +
		"rendered as the job is (same tables, settings and name, the control's `settings` over the job's) into " +
		"`sql/flink/controls/NAME.sql` and planned by the engine check before anything runs. A streaming job is " +
		"cancelled and its mutant runs in its place while the control is on; to undo, the mutant is cancelled and the " +
		"job's own SQL submitted again. A bounded job runs as its mutant in every batch step while the control is on; " +
		"to undo, the job's own SQL runs once more, so that its table holds the job's result again. The record shows " +
		"the mutant's diff against the job and whether some expectation killed it (was shown able to fail under it).",
	"control.replace": "A map from text of the job's query to the text the mutant has there, e.g. " +
		"`{ \"COALESCE(p.payment_status, 'PENDING') AS payment_status\" = \"'PENDING' AS payment_status\" }` (a " +
		"status that never updates) or `{ \"ON o.order_id = p.order_id\" = \"ON o.order_id = p.order_id WHERE " +
		"MOD(o.order_id, 10) <> 3\" }` (one key in ten lost). Each key must stand in the job's query exactly once, so " +
		"the mutant is the job changed where named, and follows the job when it is edited (a key no longer there is an " +
		"error). Needs `job`; not with `query`.",
	"control.query": "The mutant's whole SELECT, a string or `file(\"controls/NAME.sql\")`, for a change that edits " +
		"cannot say (the query `UNION ALL` itself: every row emitted twice). Checked as the job's query is (it must " +
		"read the job's tables and give the written table's columns, as one statement) and must differ from it. Needs `job`; not with " +
		"`replace`.",
	"control.settings": "A map of strings (`{ \"restart-strategy.type\" = \"none\" }`): SET statements of the " +
		"mutant, over the job's own `settings`, for a job wrong in how it runs rather than in what it computes (no " +
		"restart strategy: the first failure ends it). Alone or with `replace` or `query`; needs `job`.",
	"control.latency": "An object `{ from = \"mysql\", to = \"flink\", add = \"40s\" }`: a fault that keeps the pipeline " +
		"alive and delivering, late. Every byte `from` sends `to` arrives `add` later while the control is on: the native " +
		"stack routes that link through a proxy (toxiproxy's, in the service `linkproxy`) whenever some control names it, " +
		"and the control adds a latency toxic to it and removes it to undo, with no data lost. Waits are capped at " +
		"`--control-cap` plus `add`, so that the rows arrive. Two links: `mysql` to `flink` (the CDC sources' binlog, the " +
		"bounded jobs' JDBC reads; Flink's jobs dial the proxy for MySQL) and `kafka` to `clickhouse` (what ClickHouse's " +
		"Kafka engine tables fetch: they bootstrap from the proxy, and the broker has a listener of theirs that it " +
		"advertises as the proxy, so every fetch stays on the slowed link; Flink and labgen reach Kafka directly). The " +
		"control fails to apply on compose and Kubernetes, which route no link through a proxy.",
	"control.settle": "A duration (`\"40s\"`): how long the experiments wait after the control is applied. A mutant " +
		"submitted afresh first reads its source's backlog, and a fault seen only while it happens (a window updated in " +
		"place) must happen after the experiment has looked: without the wait, the experiment reads the backlog's end " +
		"state and the control shows nothing.",
	"control.text":  "A string: what the lab looks like while the control is on, in words.",
	"control.title": "A string: the control in words, the heading of its runs in the record.",
	"experiment.measure": "`measure \"NAME\"` declares a finding of the experiment: a number computed, once its steps have run on the healthy stack, from what they captured, such as the seconds from a payment in MySQL to its joined row in ClickHouse. " +
		"Measures stand in each experiment's answer at the top of record.md and its page, and in `record.json`; and `record diff` and the comparison page set each beside the same measure of other records. " +
		"A measure whose captures are missing is recorded as not measured, with why. The name is lowercase letters, digits and underscores, unique in the experiment.\n\n" +
		"A measure is its name and its *definition*: `sha256:` and 12 hex digits of a hash of what decides the number. That is the value's expression as written (its tokens: spacing and comments do not count), the unit, and every step the value reads, followed through what those steps read in turn (a query's captured inputs, the step a wait re-runs): the step's kind and what it runs (engine and SQL, a preset's SQL, a Kafka read, the Flink job and what it shows), a wait's condition, interval and duration, the captures read, its samples, and the values of the variables those expressions use. " +
		"Titles, texts, expectations, timeouts (but a Kafka read's, which bounds what it reads), `samples`, `window` and `resolution`, steps the value does not read, and what the lab runs (jobs, producers, the stack) do not count. " +
		"`lab.json` shows each measure's definition and the record keeps it beside the value (`definition`); `record diff`, the comparison page and `labgen sweep` refuse to set two definitions of one measure side by side, naming both and the records that hold them: compare runs of one definition, or give the changed measure a new name.",
	"experiment.measure.title": "What the number is, for people: \"payment → ClickHouse\". It names the measure's row in its experiment's answer.",
	"experiment.measure.value": "A number expression over the experiment's captures (`step.STEP.CAPTURE`) and earlier experiments' (`experiment.NAME.STEP.CAPTURE`), such as `step.wait_for_join.took_ms / 1000`. It must use at least one capture; `result` and `samples` are the steps' own and not available here (capture what a measure needs in the step, e.g. `took_ms = samples[length(samples) - 1].ms`).",
	"experiment.measure.unit":  "Optional string: the value's unit as shown beside it (\"s\", \"rows\", \"%\").",
	"experiment.measure.samples": "How many samples the value summarises (rows, runs, orders): a whole number of at least 0, written as a number (`samples = 1`) or an expression over captures like `value` (`samples = step.lag.n`). " +
		"The record keeps it and shows it beside the value: `7.50 s (n = 212, over 30.2 s)`. One that cannot be evaluated leaves the value measured and shows `n not known`.",
	"experiment.measure.window":     "The time the samples span: a duration (`\"30s\"`) or a number of seconds, static or an expression over captures (`window = step.orders_written.window_s`), at least 0. Shown beside the value as `over 30.2 s`.",
	"experiment.measure.resolution": "How finely the value was sampled: a duration (`\"1s\"`, the interval of a wait that polls; `\"1ms\"`, timestamps in milliseconds) or a number of seconds, more than 0, static or an expression over captures. Shown beside the value as `resolution 1 s`.",
}
