package schemas

// stackEnabled describes a component's enabled attribute; stores tells
// whether tables may have a store on it.
func stackEnabled(component string, stores bool) string {
	what := "what needs it is marked unavailable"
	if stores {
		what = "a table's store on it is left out without a warning, what needs it is marked unavailable"
	}
	return "Optional bool, default `true`. `false` leaves " + component + " out as if its block were absent, " +
		"without evaluating the block's other attributes: " + what + ", and `lab.json` lists it in the stack's " +
		"`disabled`. It may be a variable, as in `labs/orders`, whose lakes follow `enabled = var.lakes`."
}

// refStack describes the lab, variable and stack blocks and the page's
// and the components' introductions (see refText).
var refStack = map[string]string{
	"intro": "A lab is a directory of `.hcl` files. labgen reads every `.hcl` file directly in it (not in subdirectories), " +
		"and a block may stand in any of them: the labs in `labs/` keep the lab block and its variables in `lab.hcl`, " +
		"the stack in `stack.hcl`, the tables in `tables.hcl` and so on, but that split is only a convention. " +
		"Other files are read where an attribute names them with `file(\"…\")`, relative to the lab directory " +
		"(the SQL of `jobs/` and `presets/`). A lab has exactly one [`lab`](#lab) block and one [`stack`](#stack) block. " +
		"The other top-level blocks and an experiment's steps have a name, their label, unique among their kind; " +
		"every name a block declares (of a lab, variable, table, column, producer, follow-up, job, preset, " +
		"experiment, step or control) is lowercase letters, digits and underscores, starting with a letter, as " +
		"names become SQL identifiers and file names. An attribute or block this page does not list is an error.\n\n" +
		"Blocks refer to each other by kind and name, written as references, not strings: `table.orders` (a job's " +
		"`reads` and `writes`, a producer's `table`), `job.order_wide` (the `needs` of an experiment or a preset, a " +
		"control's `cancel`, a `flink` step), `preset.NAME` (a `query` step), `control.NAME` (an expectation's " +
		"`detects`) and `step.NAME` (a wait's `rerun`). The order of the blocks and files does not matter. " +
		"`var.NAME` is a variable's value, in any expression of the other blocks and in a validation's " +
		"`condition`; the steps of an experiment also see the values earlier steps captured, `step.STEP.CAPTURE` and " +
		"`experiment.EXPERIMENT.STEP.CAPTURE` (see [Expressions](#expressions)).\n\n" +
		"Variables are given their values when the lab is loaded, by `labgen validate` and `labgen render`: a variable " +
		"takes its `default`, then `LABGEN_VAR_NAME` from the environment, then each `-var NAME=VALUE` and " +
		"`-var-file FILE` in command-line order, the later winning. The rendered lab's `lab.json` keeps each value and " +
		"where it came from, and the commands that run a rendered lab read them there.\n\n" +
		"`labgen validate LAB_DIR` loads the lab as render and run will see it and prints every error and warning " +
		"with its file, line and a snippet of the source, writing and starting nothing (`--engines` also has the " +
		"running engines check the lab's SQL). `labgen fmt LAB_DIR` rewrites the lab's `.hcl` files in HCL's " +
		"canonical layout; `labgen fmt -check LAB_DIR` writes nothing, lists the files that would change and exits 1 " +
		"if there are any.\n\n" +
		"The [tutorial](tutorial.md) builds a lab step by step from an empty directory, and " +
		"[the overview](language.md) introduces the blocks and how they fit together with an example from " +
		"`labs/orders`; this page lists every block, attribute, function and component the loader accepts, with its " +
		"type, default and checks.",

	"components": "The [`stack`](#stack) block holds one block per component, each described under `stack` above. " +
		"A lab runs what its stores, jobs and experiments use: a source database (`mysql` or `postgres`) for its " +
		"producers to write and Flink to read through CDC, `flink` for any job, `kafka` for topics and `kafka` steps, " +
		"`clickhouse` to serve, " + codeList(lakeComponents(), "and") + " for lake tables; `kafka_ui`, `console` and `batch_loop` only " +
		"help people watch and run it. Of the labs in `labs/`, `orders` runs MySQL, Kafka, Flink, ClickHouse, Fluss and " +
		"Iceberg (both switched by `var.lakes`), Kafka UI, the console and the batch loop; `sensors` runs MySQL, Kafka, " +
		"Flink, ClickHouse and the console; `orders_pg` the same with PostgreSQL in place of MySQL, and Paimon. The producer has " +
		"no block: its service runs when the lab declares producers and the stack a source database.\n\n" +
		"Every port a block names is on 127.0.0.1 only: compose publishes it there, and the native stack " +
		"(`labgen up OUT --native`), which runs the same components as local processes, listens there; the ports " +
		"compose keeps on its own network are fixed on the native stack (ZooKeeper 2181, Kafka's controller 9093, " +
		"Fluss 9123 and 9124, Flink's RPC 6123 and blob server 6124). The table lists the compose services each " +
		"block may run: `taskmanager` once per TaskManager (`taskmanager-2`, …), `tiering` only with Fluss, " +
		"`batch-loop` only with Flink and a batch job the stack can run, and " + codeList(serviceless(), "and") + " none.",

	// lab
	"lab": "Declares the lab: its name, the label, and what people read of it. A lab has exactly one `lab` block, in " +
		"any of its files; none, or a second one, is an error. The name is lowercase letters, digits and underscores, " +
		"starting with a letter; it is the rendered lab's name in `lab.json` and its records, and names its compose " +
		"project with a hash of the directory it is rendered into (`labgen-NAME-<8 hex>`, with `-` for `_`), so that two " +
		"renders of one lab never share a stack's volumes.",
	"lab.title": "Required string: the lab's title, the heading of the rendered `runbook.md`, of each run's record " +
		"and its published pages, and the title of the query console's page.",
	"lab.description": "Optional string, default empty (a heredoc, `<<-EOT … EOT`, reads best): what the lab is " +
		"about, printed under the title in `runbook.md`. Blank space around it is trimmed.",
	"lab.seed": "Optional whole number, default `1`: the seed of all the producer's randomness. Every value the " +
		"producer draws is a function of the seed, of what is drawn (producer and field names) and of the event's " +
		"number, so the same seed draws the same values whatever the timing. `labgen produce --seed S` overrides " +
		"it; each record's head shows it.",

	// variable
	"variable": "Declares an input of the lab, set from outside without editing its files, as in Terraform: " +
		"`var.NAME` anywhere else in the lab is its value. The label is its name (lowercase letters, digits and " +
		"underscores, starting with a letter; declared once). Its value is the `default`, replaced by " +
		"`LABGEN_VAR_NAME` from the environment, then by each `-var NAME=VALUE` and `-var-file FILE` given to " +
		"`labgen validate` or `labgen render`, in command-line order. A var-file is HCL of `NAME = VALUE` lines. " +
		"From `-var` and the environment, the value of a `string`, `number`, `bool` or untyped variable is read as " +
		"text and converted (`-var order_rate=50`); that of a collection or object is parsed as an HCL expression " +
		"(`-var 'payment_outcomes={ PAID = 90, FAILED = 10, NONE = 0 }'`).\n\n" +
		"A variable with neither a default nor a value is an error, and so is a value given by `-var` or a var-file " +
		"for a variable the lab does not declare (the environment's other `LABGEN_VAR_` entries are ignored). " +
		"`lab.json` and the runbook's table of variables list each value with where it came from (`default`, `env`, " +
		"`var` or `var-file`).",
	"variable.type": "Optional type constraint, written as in Terraform, without quotes: `string`, `number`, `bool`, " +
		"`list(T)`, `set(T)`, `map(T)`, `object({ … })`, `tuple([ … ])` or `any`. Default `any`: the value keeps " +
		"the type it is given (text, from `-var` and the environment). The default and every value given are " +
		"converted to it; one that does not convert is an error.",
	"variable.default": "Optional: the value when nothing else sets one. A constant: it may neither refer to " +
		"variables nor call functions, and it must convert to `type`. Without a default the variable must be set " +
		"by `-var`, a var-file or `LABGEN_VAR_NAME`.",
	"variable.description": "Optional string without references: what the variable means. The runbook's table of " +
		"variables shows it beside each value, and `lab.json` keeps it.",
	"variable.validation": "A rule the variable's value must follow, as in Terraform; a variable may have any " +
		"number of them. They are checked once every variable has its value, and only if setting the values raised " +
		"no error. When a rule's `condition` is false, loading fails with its `error_message`, at where the value came " +
		"from (the default or the var-file's line; the variable's block for `-var` and the environment), and names " +
		"the rule's line.",
	"variable.validation.condition": "Required expression, true when the value is acceptable, such as " +
		"`var.order_rate > 0 && var.order_rate <= 10000`. It may use every variable of the lab (a rule can relate " +
		"two) and labgen's functions but `file`; a result other than true or false, null included, is an error.",
	"variable.validation.error_message": "Required string without references: the error's message when the " +
		"`condition` is false. Say what values are allowed.",

	// stack
	"stack": "The components the lab runs, one block each, in one `stack` block (a lab without one, or with two, " +
		"is an error, and so is a component's block given twice). A component's block present runs it, an empty " +
		"one (`kafka {}`) with the defaults given below; a component without a block does not run. Every block " +
		"takes `enabled`, so that a variable can switch the component off: `fluss { enabled = var.lakes }`. " +
		"[Stack components](#stack-components) lists the services each runs.\n\n" +
		"What the stack leaves out, the rest of the lab does without. A table's store on a component the stack " +
		"does not run is left out (with a warning, unless `enabled = false` switched the component off). A job " +
		"that reads such a store, whose written table keeps no store Flink can write, or that has no Flink to run " +
		"on is unavailable: warned about, its SQL not rendered, never submitted. So are a preset of an engine the " +
		"stack lacks and an experiment that needs any of these, marked unavailable in the runbook and in runs. That is how `labs/orders` runs with `-var " +
		"lakes=false`: without the experiments of its lakes.\n\n" +
		"A component's `version` (and Fluss's `zookeeper_version` and `lake_version`) is what an image tag holds: letters, " +
		"digits, `.`, `_` and `-`, at most 128, not starting with `.` or `-`; its `image` is an image reference " +
		"(`name:tag`, `registry.example.com/team/name:tag` or `name@sha256:…`, the name lowercase). Both are written " +
		"into `labgen.lock`, the Dockerfiles, compose and `.env`, so anything else (a space, a line break) is an error " +
		"at the attribute.",

	"stack.mysql": "MySQL, the source database the producer writes and Flink reads through CDC (Flink CDC's " +
		"mysql-cdc, from the binlog). With Docker it is the `mysql` service: the image below, with the binlog in " +
		"ROW format with full row images and GTIDs, UTC, utf8mb4 and performance_schema off; its first start creates " +
		"`database`, the tables of the lab's `store \"mysql\"` stores and the lab's users (the producer's, CDC's and " +
		"a read-only one, with the passwords of `.env`). The native stack runs MariaDB from Debian's package " +
		"instead, as no MySQL 8 server can be had without Docker; Flink CDC reads its binlog by file and position, " +
		"and `version` and `image` do not apply. When the stack runs both MySQL and PostgreSQL, the producer writes " +
		"MySQL.",
	"stack.mysql.enabled": stackEnabled("MySQL", true),
	"stack.mysql.version": "Optional string, default `\"8.0.40\"`: the tag of the default image, `mysql:VERSION`. " +
		"The native stack's MariaDB ignores it.",
	"stack.mysql.image": "Optional string, default `mysql:` and `version`: the image of the `mysql` service, for a " +
		"mirror or another build. The native stack ignores it.",
	"stack.mysql.database": "Optional name, default `\"shop\"`: the database of the lab's MySQL tables, which the " +
		"producer writes, Flink reads and presets query. Lowercase letters, digits and underscores, starting with a " +
		"letter.",
	"stack.mysql.port": "Optional port (a whole number from 1 to 65535), default `3306`: where MySQL listens on " +
		"127.0.0.1 for labgen's commands (the container's own port stays 3306; the native MariaDB listens on this " +
		"one).",

	"stack.postgres": "PostgreSQL, a source database as MySQL is: the producer writes the tables of the lab's " +
		"`store \"postgres\"` stores, in the database's `public` schema, and Flink reads their changes through " +
		"logical replication (Flink CDC's postgres-cdc, with pgoutput). With Docker it is the `postgres` service: " +
		"the image below with `wal_level=logical`, 16 replication slots and WAL senders, UTC and " +
		"`shared_buffers=64MB`; its first start creates the tables and the lab's users. The native stack runs " +
		"PostgreSQL from Debian's package (15 on bookworm) with logical decoding instead, and `version` and `image` " +
		"do not apply. `labs/orders_pg` runs it in place of MySQL; when a stack runs both, the producer writes MySQL.",
	"stack.postgres.enabled": stackEnabled("PostgreSQL", true),
	"stack.postgres.version": "Optional string, default `\"17\"`: the tag of the default image, `postgres:VERSION` " +
		"(the release Flink CDC 3.5's postgres-cdc is tested against). The native stack ignores it.",
	"stack.postgres.image": "Optional string, default `postgres:` and `version`: the image of the `postgres` " +
		"service. The native stack ignores it.",
	"stack.postgres.database": "Optional name, default `\"shop\"`: the database of the lab's PostgreSQL tables " +
		"(in its `public` schema). Lowercase letters, digits and underscores, starting with a letter.",
	"stack.postgres.port": "Optional port (a whole number from 1 to 65535), default `5432`: where PostgreSQL " +
		"listens on 127.0.0.1 for labgen's commands (the container's own port stays 5432; the native server " +
		"listens on this one).",

	"stack.kafka": "Kafka, one KRaft node: the `kafka` service. Each table's `store \"kafka\"` is a topic, which " +
		"the one-shot `kafka-init` service creates with its partitions; Flink jobs write and read the topics, " +
		"ClickHouse's Kafka engine consumes them and `kafka` steps read them. Containers reach the broker at " +
		"`kafka:19092`, the host at `127.0.0.1:PORT`. The native stack runs the Kafka release its Maven files pin " +
		"(4.1.0) as a local process and creates the topics through the admin API; `version` and `image` do not " +
		"apply there.",
	"stack.kafka.enabled": stackEnabled("Kafka", true),
	"stack.kafka.version": "Optional string, default `\"4.1.0\"`: the tag of the default image, " +
		"`apache/kafka:VERSION`. The Kafka connector and client jars of the Flink image do not follow it, and the " +
		"native stack runs 4.1.0 whatever it says.",
	"stack.kafka.image": "Optional string, default `apache/kafka:` and `version`: the image of the `kafka` and " +
		"`kafka-init` services. The native stack ignores it.",
	"stack.kafka.port": "Optional port (a whole number from 1 to 65535), default `9092`: the broker's listener " +
		"for the host, on 127.0.0.1, which it advertises as `127.0.0.1:PORT` (containers use `kafka:19092`; the " +
		"native broker listens on this port, its controller on 9093).",

	"stack.kafka_ui": "Kafka UI (kafbat's `kafka-ui`), a web page to browse the lab's topics and their messages: " +
		"the `kafka-ui` service, pointed at the broker, at `http://127.0.0.1:PORT`. It runs only with Kafka (without " +
		"a `kafka` block it is left out) and only as a container: the native stack does not run it; read a topic " +
		"with a `kafka` step, or any Kafka client at Kafka's port.",
	"stack.kafka_ui.enabled": stackEnabled("Kafka UI", false),
	"stack.kafka_ui.image": "Optional string, default `\"ghcr.io/kafbat/kafka-ui:v1.2.0\"`: the image of the " +
		"`kafka-ui` service (the block has no `version`).",
	"stack.kafka_ui.port": "Optional port (a whole number from 1 to 65535), default `8080`: where the UI is " +
		"published on 127.0.0.1 (the container's own port stays 8080).",

	"stack.clickhouse": "ClickHouse, the serving store: the tables of the lab's `store \"clickhouse\"` stores, " +
		"ReplacingMergeTree tables in `database`, and for a table that ingests its Kafka topic a Kafka-engine " +
		"table and a materialized view that move each message in. With Docker it is the `clickhouse` service " +
		"(`clickhouse-server`) and the one-shot `clickhouse-init`, which applies that schema; labgen's query steps " +
		"and the console reach it over the native protocol at `tcp_port`. The native stack runs chdb (ClickHouse " +
		"in-process, 26.9) behind a small HTTP front instead, which applies the schema when it starts and opens no " +
		"native-protocol port: labgen then queries it over HTTP at `http_port`, and `version`, `image` and " +
		"`tcp_port` do not apply.",
	"stack.clickhouse.enabled": stackEnabled("ClickHouse", true),
	"stack.clickhouse.version": "Optional string, default `\"25.8\"`: the tag of the default image, " +
		"`clickhouse/clickhouse-server:VERSION`. The native stack's chdb ignores it.",
	"stack.clickhouse.image": "Optional string, default `clickhouse/clickhouse-server:` and `version`: the image " +
		"of the `clickhouse` and `clickhouse-init` services. The native stack ignores it.",
	"stack.clickhouse.database": "Optional name, default `\"analytics\"`: the database of the lab's ClickHouse " +
		"tables. Lowercase letters, digits and underscores, starting with a letter.",
	"stack.clickhouse.http_port": "Optional port (a whole number from 1 to 65535), default `8123`: ClickHouse's " +
		"HTTP interface on 127.0.0.1 (the container's own port stays 8123). On the native stack it is chdb's HTTP " +
		"front, and the port labgen queries.",
	"stack.clickhouse.tcp_port": "Optional port (a whole number from 1 to 65535), default `9000`: ClickHouse's " +
		"native protocol on 127.0.0.1 (the container's own port stays 9000), which labgen's query steps and the " +
		"console use with Docker. The native stack has no such port.",

	"stack.fluss": "Apache Fluss, streaming storage whose tables are tiered into a lake, Paimon: the tables of " +
		"the lab's `store \"fluss\"` stores, which Flink jobs write and read as `fluss_catalog.DATABASE.TABLE`. It " +
		"runs `zookeeper`, the `coordinator-server` and a `tablet-server`, which keep their remote data and the " +
		"Paimon warehouse on a volume shared with Flink. With Flink, the one-shot `tiering` service starts Fluss's " +
		"tiering job on the Flink cluster, which copies each table into Paimon, and labgen creates the tables with " +
		"tiering on. Flink's TaskManagers get more memory with a lake. The native stack runs the ZooKeeper and " +
		"Fluss releases its Maven files pin (3.9.2, 0.9.1-incubating) as local processes and submits the tiering " +
		"job through Flink's REST API; `version`, `image` and `zookeeper_version` do not apply there. `labs/orders` " +
		"switches it with `enabled = var.lakes`.",
	"stack.fluss.enabled": stackEnabled("Fluss", true),
	"stack.fluss.version": "Optional string, default `\"0.9.1-incubating\"`: the Fluss release, the tag of the " +
		"default image `apache/fluss:VERSION` and the version of the Fluss jars of the Flink image (its connector, " +
		"its lake plugin, the tiering job); render fails for a version whose jars' checksums labgen does not pin. " +
		"The native servers run 0.9.1-incubating whatever it says.",
	"stack.fluss.image": "Optional string, default `apache/fluss:` and `version`: the image of the " +
		"`coordinator-server` and `tablet-server` services. The native stack ignores it.",
	"stack.fluss.zookeeper_version": "Optional string, default `\"3.9.2\"`: the ZooKeeper Fluss needs, as the " +
		"image `zookeeper:VERSION` of the `zookeeper` service. The native stack runs 3.9.2 whatever it says.",
	"stack.fluss.lake": "Optional string, default `\"paimon\"`, the only value allowed: the lake format Fluss " +
		"tiers into. It sets the servers' `datalake.format` with a filesystem Paimon warehouse on the shared " +
		"volume, the lake plugin jar of the Flink image, and where the tiering job writes.",
	"stack.fluss.lake_version": "Optional string, default `\"1.3.1\"`: the Paimon release of the `paimon-flink` " +
		"jar in the Flink image; render fails for a version whose checksum labgen does not pin. The native Fluss " +
		"servers' Paimon plugin is 1.3.1 whatever it says.",
	"stack.fluss.freshness": "Optional duration (positive, such as `\"30s\"` or `\"1m\"`), default `\"30s\"`: " +
		"`table.datalake.freshness` of each Fluss table labgen creates, how far its Paimon copy may lag behind it; " +
		"the tiering job commits to the lake about that often.",
	"stack.fluss.database": "Optional name, default `\"lab\"`: the database of `fluss_catalog` that holds the " +
		"lab's Fluss tables. Lowercase letters, digits and underscores, starting with a letter.",

	"stack.flink": "Apache Flink, a session cluster that runs the lab's jobs: the `jobmanager` (REST API and web " +
		"UI), one service per TaskManager (`taskmanager`, `taskmanager-2`, …) and the `sql-gateway`, all in an " +
		"image labgen builds on `image` with the connector jars the stack needs (listed with their checksums in " +
		"`labgen.lock`). With Docker the `job-submitter` service submits the lab's streaming jobs once their " +
		"sources, topics and tables are ready, and every 30 s submits again any that is gone (the JobManager has " +
		"no high availability); with Fluss the one-shot `tiering` service starts Fluss's tiering job. The native " +
		"stack runs the same entry points as local processes over Maven's jars of the Flink release it pins " +
		"(1.20.1), and `labgen up` and `labgen run` submit the jobs. Without a `flink` block every job is " +
		"unavailable.\n\n" +
		"Its attributes reach the `flink/config.yaml` labgen renders and each job's SQL, as each says. Checkpoints " +
		"are exactly-once, to a directory the JobManager and TaskManagers share; state is where `state_backend` says; " +
		"failover restarts a failed region only.",
	"stack.flink.enabled": stackEnabled("Flink", false),
	"stack.flink.version": "Optional string, default `\"1.20.1\"`: the Flink release. It names the default image " +
		"and chooses the connector jars for its minor release (`1.20`); render fails for a release labgen pins " +
		"no connector or checksum for. The native stack runs Flink 1.20.1 whatever it says; only the lab's " +
		"connector jars follow it.",
	"stack.flink.image": "Optional string, default `flink:VERSION-scala_2.12-java17` with `version`: the base of " +
		"the lab's Flink image, which adds the connector jars. The native stack ignores it.",
	"stack.flink.taskmanagers": "Optional whole number, at least 1, default `1`: how many TaskManagers run, each " +
		"its own service (`taskmanager`, `taskmanager-2`, …; natively its own process), so that a step can stop " +
		"one. Each has `taskmanager.memory.process.size` 1344m when the stack keeps a lake (Fluss or Iceberg), " +
		"960m otherwise.",
	"stack.flink.slots": "Optional whole number, at least 1, default `4`: the fewest task slots of a TaskManager. " +
		"labgen sets `taskmanager.numberOfTaskSlots` to the larger of this and what the lab runs at once spread " +
		"over the TaskManagers: each streaming job at `parallelism`, Fluss's tiering job, one bounded job of the " +
		"batch loop and one of `labgen batch` when the lab has batch jobs, and one spare. The runbook shows the sum.",
	"stack.flink.parallelism": "Optional whole number, at least 1, default `1`: the parallelism of every job, " +
		"`parallelism.default` in `config.yaml` and in each job's SQL. A value given here above `taskmanagers` × " +
		"`slots` is an error.",
	"stack.flink.checkpoint_interval": "Optional duration (positive, such as `\"10s\"` or `\"1m\"`), default " +
		"`\"10s\"`: `execution.checkpointing.interval`. The CDC sources leave their snapshot phase, and Iceberg " +
		"commits, only at checkpoints.",
	"stack.flink.state_ttl": "Optional duration (positive, such as `\"30m\"` or `\"1h\"`), default `\"1h\"`: " +
		"`table.exec.state.ttl` of every streaming job, set at the top of its SQL (a job's own `settings` come " +
		"after it). Flink drops the state of a key not touched for that long, so a row that comes later no longer " +
		"meets what it would have joined or been counted with.",
	"stack.flink.state_backend": "Optional string, default `\"hashmap\"`; one of `\"hashmap\"` and `\"rocksdb\"`: " +
		"`state.backend.type`, where the jobs keep their keyed state (a join's rows, an aggregate's accumulators). " +
		"`hashmap` keeps it as objects on the TaskManager's heap (`taskmanager.memory.managed.fraction` 0.2 with " +
		"batch jobs, 0.1 without); `rocksdb` serializes it into an embedded RocksDB under the TaskManager's " +
		"temporary directory, in managed memory (fraction 0.4, Flink's default), with incremental checkpoints " +
		"(`state.backend.incremental`): slower per access, bounded by disk rather than heap. Flink's distribution " +
		"bundles the RocksDB backend; the native stack adds its jar. The record's head shows the value Flink ran with.",
	"stack.flink.ui_port": "Optional port (a whole number from 1 to 65535), default `8081`: the JobManager's REST " +
		"API and web UI on 127.0.0.1 (the container's own port stays 8081), through which labgen follows the " +
		"jobs.",
	"stack.flink.gateway_port": "Optional port (a whole number from 1 to 65535), default `8083`: the SQL gateway's " +
		"REST endpoint on 127.0.0.1 (the container's own port stays 8083), through which labgen sends SQL to " +
		"Flink: the engine checks, and on the native stack the jobs themselves.",
	"stack.flink.restart": "Flink's restart strategy for a failed job; at most one block, a second is an error. " +
		"Without it, or for what it leaves out: `fixed-delay`, 10 attempts, 5 s apart. It becomes the " +
		"`restart-strategy.*` keys of `config.yaml`.",
	"stack.flink.restart.strategy": "Optional string, default `\"fixed-delay\"`; one of `\"fixed-delay\"`, " +
		"`\"exponential-delay\"` and `\"none\"`. `fixed-delay` restarts a failed job up to `attempts` times, " +
		"`delay` apart; `exponential-delay` waits `delay` before the first restart and longer before each next " +
		"(Flink's defaults for the rest); `none` lets a job fail at its first failure.",
	"stack.flink.restart.attempts": "Optional whole number, at least 0, default `10`: with `fixed-delay`, " +
		"`restart-strategy.fixed-delay.attempts`, the restarts before the job fails; with `exponential-delay`, " +
		"`restart-strategy.exponential-delay.attempts-before-reset-backoff`. Unused with `none`.",
	"stack.flink.restart.delay": "Optional duration (positive, such as `\"5s\"`), default `\"5s\"`: " +
		"`restart-strategy.fixed-delay.delay`, or with `exponential-delay` its `initial-backoff`. Unused with `none`.",

	"stack.iceberg": "Apache Iceberg tables, written by Flink independently of Fluss: the tables of the lab's " +
		"`store \"iceberg\"` stores, in Flink's `iceberg_catalog` under `database`, which labgen creates as " +
		"format-version 2 upsert tables. It runs no service: Flink writes the tables into a warehouse directory on " +
		"the shared volume (under `OUT/.native/` on the native stack) and commits at each checkpoint, with the " +
		"`iceberg-flink-runtime` jar in its image, so it needs `flink`. Flink's TaskManagers get more memory with " +
		"a lake. `labs/orders` switches it with `enabled = var.lakes`.",
	"stack.iceberg.enabled": stackEnabled("Iceberg", true),
	"stack.iceberg.version": "Optional string, default `\"1.10.1\"`: the release of the `iceberg-flink-runtime` " +
		"jar for Flink's minor release, in the Flink image and the native stack alike; render fails for a version " +
		"whose checksum labgen does not pin.",
	"stack.iceberg.catalog": "Optional string, default `\"hadoop\"`, the only value allowed: the `catalog-type` " +
		"of `iceberg_catalog`, a Hadoop catalog that keeps the tables' metadata as files in the warehouse, with " +
		"no catalog service.",
	"stack.iceberg.database": "Optional name, default `\"lab\"`: the database of `iceberg_catalog` that holds the " +
		"lab's Iceberg tables. Lowercase letters, digits and underscores, starting with a letter.",

	"stack.console": "labgen's read-only query console: a web page at `http://127.0.0.1:PORT` that runs the lab's " +
		"presets, or SQL typed in, against its source database or ClickHouse, and shows the result with column " +
		"types, row count and time. Only single read statements run, as the lab's read-only users. With Docker " +
		"the `console` service runs `labgen console` in the labgen image the rendered lab builds; the native stack " +
		"runs it as a local process. `labgen console OUT` serves the same page without the block.",
	"stack.console.enabled": stackEnabled("the console", false),
	"stack.console.port": "Optional port (a whole number from 1 to 65535), default `8088`: where the console " +
		"listens on 127.0.0.1 (the container listens on the same port).",

	"stack.batch_loop": "Runs the lab's bounded (batch) jobs in the background: the `batch-loop` service runs each " +
		"batch job the stack can run, one after another and each to its end, then pauses for `pause` and starts " +
		"again; a job that fails is tried again in the next round. With lake tables it first creates those that " +
		"are missing. It runs in the lab's Flink image once `job-submitter` is healthy, only with Flink and at " +
		"least one available batch job, and its job takes slots of its own. The native stack does not run it: " +
		"`labgen batch OUT` runs the bounded jobs on demand.",
	"stack.batch_loop.enabled": stackEnabled("the batch loop", false),
	"stack.batch_loop.pause": "Optional duration (positive, such as `\"30s\"` or `\"5m\"`), default `\"5m\"`: the " +
		"pause after each round, counted from the end of its last job, not a schedule; in whole seconds, at " +
		"least 1.",
}
