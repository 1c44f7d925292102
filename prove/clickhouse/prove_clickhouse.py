#!/usr/bin/env python3
"""Prove a rendered lab's ClickHouse SQL on a current ClickHouse (chdb).

Test infrastructure for `make prove` (see README.md beside this file); run it
through prove-clickhouse.sh, which creates the virtualenv. For each rendered
lab directory given:

1. every statement of sql/clickhouse/*.sql runs, in file order, on an
   in-process ClickHouse (a chdb session on a temporary path), then the
   files run a second time (the init container may run them again on an
   existing volume, so they must be idempotent);
2. with a Kafka broker (LABGEN_KAFKA_BROKER, set by withbroker), the
   Kafka-engine tables are created against it and messages shaped like
   Flink's upsert-kafka JSON output (keys, nulls, a tombstone) are produced
   into their topics; the rows must arrive, value for value, in the tables
   the materialized views feed;
3. a few deterministic rows go into every MergeTree-family table, with
   values made from the column types in system.columns;
4. every ClickHouse preset and every ClickHouse query step of lab.json runs
   read-only (readonly=1, like the lab's reader profile), with ${step...} and
   ${experiment...} placeholders replaced by an inserted value of the column
   the capture names; the columns that captures and expectations read from
   a step's result must be among the columns the query returns.

Exit status: 0 when everything ran, 1 on any failure (each with ClickHouse's
own message and the file:line or preset/step it came from), 2 on bad usage.
"""

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
import time

SUMMARY_PREFIX = "clickhouse totals:"


# ---------------------------------------------------------------- splitting

def split_sql(text):
    """Split SQL text into (line, statement) at top-level semicolons.

    Quotes ('...', "...", `...` with backslash escapes and doubled quotes)
    and comments (-- to end of line, # to end of line is not used here,
    /* ... */ nested) are respected. line is the 1-based line of the
    statement's first character that is neither blank nor comment.
    Statements that hold only blanks and comments are dropped.
    """
    out = []
    i, n, line = 0, len(text), 1
    start = None       # index of the first significant character
    start_line = None
    seg_begin = 0      # index where the current statement's text begins
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
            continue
        if c == "-" and text.startswith("--", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
            continue
        if c == "/" and text.startswith("/*", i):
            depth, i = 1, i + 2
            while i < n and depth:
                if text.startswith("/*", i):
                    depth, i = depth + 1, i + 2
                elif text.startswith("*/", i):
                    depth, i = depth - 1, i + 2
                else:
                    if text[i] == "\n":
                        line += 1
                    i += 1
            continue
        if c == ";":
            if start is not None:
                out.append((start_line, text[seg_begin:i].strip()))
            start = None
            seg_begin = i + 1
            i += 1
            continue
        if c.isspace():
            i += 1
            continue
        if start is None:
            start, start_line = i, line
        if c in "'\"`":
            q = c
            i += 1
            while i < n:
                ch = text[i]
                if ch == "\\":
                    i += 2
                    continue
                if ch == "\n":
                    line += 1
                if ch == q:
                    if text.startswith(q, i + 1):  # doubled quote
                        i += 2
                        continue
                    break
                i += 1
            i += 1
            continue
        i += 1
    if start is not None:
        out.append((start_line, text[seg_begin:].strip()))
    return out


KAFKA_ENGINE = re.compile(r"\bENGINE\s*=\s*Kafka\b", re.I)
CREATE_NAME = re.compile(
    r"^\s*CREATE\s+(?:OR\s+REPLACE\s+)?(?:TEMPORARY\s+)?(TABLE|MATERIALIZED\s+VIEW|VIEW|DATABASE|DICTIONARY)"
    r"\s+(?:IF\s+NOT\s+EXISTS\s+)?((?:`[^`]+`|\w+)(?:\.(?:`[^`]+`|\w+))?)",
    re.I | re.S)


def strip_comments(sql):
    """The statement without -- comments, for matching (not for running)."""
    return re.sub(r"--[^\n]*", "", sql)


def unquote_name(name):
    parts = re.findall(r"`([^`]+)`|(\w+)", name)
    return ".".join(a or b for a, b in parts)


def kafka_setting(sql, key):
    m = re.search(r"\b%s\s*=\s*'([^']*)'" % re.escape(key), sql)
    return m.group(1) if m else None


def set_kafka_setting(sql, key, value):
    return re.sub(r"(\b%s\s*=\s*)'[^']*'" % re.escape(key),
                  lambda m: m.group(1) + "'" + value + "'", sql)


# ---------------------------------------------------------------- values

def unwrap(t, wrapper):
    if t.startswith(wrapper + "(") and t.endswith(")"):
        return t[len(wrapper) + 1:-1], True
    return t, False


def string_choices(lab):
    """Values the lab's producers write to string fields, by field name,
    in the order first met, so that inserted rows look like the lab's data:
    every value of a field (a row's CREATED and its follow-up's PAID and
    FAILED), so that rows keyed by such a field do not collapse to one."""
    out = {}

    def add(field_name, vals):
        have = out.setdefault(field_name, [])
        for v in vals:
            if isinstance(v, str) and v not in have:
                have.append(v)

    def visit(field_name, dist):
        if not isinstance(dist, dict):
            return
        kind = dist.get("kind")
        if kind == "weighted":
            add(field_name, [c["value"] for c in dist.get("choices") or []])
        if kind == "constant":
            add(field_name, [dist.get("value")])
        if kind == "outcome_map":
            add(field_name, [e.get("value") for e in dist.get("map") or []])

    for p in lab.get("producers") or []:
        for f in p.get("fields") or []:
            visit(f["name"], f.get("value"))
        for fl in p.get("follows") or []:
            for f in (fl.get("fields") or []) + (fl.get("update") or []):
                visit(f["name"], f.get("value"))
            oc = fl.get("outcome")
            if isinstance(oc, dict) and oc.get("kind") == "weighted":
                # The outcome names the status a follow-up writes.
                for f in (fl.get("fields") or []) + (fl.get("update") or []):
                    if (f.get("value") or {}).get("kind") == "outcome":
                        add(f["name"], [c["value"] for c in oc.get("choices") or []])
    return {k: v for k, v in out.items() if v}


def sql_string(s):
    return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"


def value_literal(ch_type, column, i, choices):
    """A deterministic SQL literal of ch_type for row i (0, 1, 2).

    Row 2 is NULL in Nullable columns; the other rows always have values,
    so a placeholder can take one from row 0. Types this does not know get
    defaultValueOfTypeName, which is valid for any type.
    """
    t, nullable = unwrap(ch_type, "Nullable")
    if nullable and i == 2:
        return "NULL"
    t, _ = unwrap(t, "LowCardinality")
    t, nullable2 = unwrap(t, "Nullable")
    if nullable2 and i == 2:
        return "NULL"
    base = re.match(r"\w+", t).group(0) if re.match(r"\w+", t) else t
    day, minute = 1 + i, 10 * i
    if re.fullmatch(r"U?Int(8|16|32|64|128|256)", base):
        return str(101 + i)
    if base.startswith("Float") or base == "BFloat16":
        return "%d.5" % (1 + i)
    if base.startswith("Decimal"):
        return "CAST('%d.%02d' AS %s)" % (12 + 10 * i, 34 + i, t)
    if base in ("String", "FixedString"):
        vals = choices.get(column)
        v = vals[i % len(vals)] if vals else "%s_%d" % (column, i + 1)
        return "CAST(%s AS %s)" % (sql_string(v), t)
    if base == "DateTime64":
        return "CAST('2026-01-%02d 10:%02d:00.123' AS %s)" % (day, minute, t)
    if base == "DateTime":
        return "CAST('2026-01-%02d 10:%02d:00' AS %s)" % (day, minute, t)
    if base in ("Date", "Date32"):
        return "CAST('2026-01-%02d' AS %s)" % (day, t)
    if base == "Bool":
        return "true" if i % 2 == 0 else "false"
    if base == "UUID":
        return "toUUID('00000000-0000-4000-8000-%012d')" % (i + 1)
    if base.startswith("Enum"):
        labels = re.findall(r"'((?:[^'\\]|\\.)*)'", t)
        if labels:
            return "CAST(%s AS %s)" % (sql_string(labels[i % len(labels)]), t)
    return "defaultValueOfTypeName(%s)" % sql_string(t)


def flink_json_value(ch_type, column, i, choices):
    """The JSON value Flink's json format (upsert-kafka, SQL timestamps,
    decimals as plain numbers) writes for a column of the given ClickHouse
    type, row i. None means JSON null."""
    t, nullable = unwrap(ch_type, "Nullable")
    if nullable and i == 2:
        return None
    t, _ = unwrap(t, "LowCardinality")
    base = re.match(r"\w+", t).group(0)
    if re.fullmatch(r"U?Int(8|16|32|64)", base):
        return RawJSON(str(201 + i))
    if base.startswith("Float"):
        return RawJSON("%d.25" % (2 + i))
    if base.startswith("Decimal"):
        # 'value.json.encode.decimal-as-plain-number' = 'true': 12.30, not "12.30" or 1.23E+1
        return RawJSON("%d.%02d" % (30 + i, 10 * i))
    if base == "String":
        vals = choices.get(column)
        return vals[(i + 1) % len(vals)] if vals else "%s_k%d" % (column, i + 1)
    if base in ("DateTime64", "DateTime"):
        # Flink's SQL timestamp format prints as many fraction digits as
        # needed: none for whole seconds, .5 for half a second.
        frac = ["", ".5", ".123"][i % 3]
        if base == "DateTime":
            frac = ""
        return "2026-02-%02d 11:%02d:07%s" % (1 + i, 5 * i, frac)
    if base in ("Date", "Date32"):
        return "2026-02-%02d" % (1 + i)
    if base == "Bool":
        return RawJSON("true")
    return Unsupported(t)


class RawJSON(str):
    """A JSON token written as is (numbers keep their exact digits)."""


class Unsupported(str):
    """A type whose Flink JSON form this helper does not produce."""


def json_object(pairs):
    parts = []
    for k, v in pairs:
        if v is None:
            enc = "null"
        elif isinstance(v, RawJSON):
            enc = str(v)
        else:
            enc = json.dumps(v)
        parts.append("%s:%s" % (json.dumps(k), enc))
    return "{" + ",".join(parts) + "}"


# ---------------------------------------------------------------- report

class Report:
    def __init__(self, lab_dir):
        self.lab_dir = lab_dir
        self.executed = 0
        self.queries = 0
        self.notes = []          # informational lines
        self.not_checkable = []  # (what, why)
        self.failures = []       # (where, message, sql)

    def fail(self, where, message, sql=None):
        self.failures.append((where, message, sql))

    def skip(self, what, why):
        self.not_checkable.append((what, why))


def error_text(e):
    s = str(e).strip()
    # chdb wraps some messages twice ("Code: 164. DB::Exception: Code: 164. ...").
    m = re.match(r"^(Code: \d+\. DB::Exception: )(Code: \d+\. DB::Exception: .*)$", s, re.S)
    return m.group(2) if m else s


# ---------------------------------------------------------------- the check

class Prover:
    def __init__(self, lab_dir, broker, broker_missing, run_index, verbose):
        self.dir = lab_dir
        self.broker = broker
        self.broker_missing = broker_missing
        self.run_index = run_index
        self.verbose = verbose
        self.r = Report(lab_dir)
        self.sess = None
        self.lab = None
        self.rows = {}          # "db.table" -> list of {column: text or None}
        self.kafka_tables = []  # dicts: name, sql, file, line, topic, target, mv
        self.mvs = {}           # "db.source" -> [(mv name, "db.target")]
        self.producer = None
        self.shutdown_noted = False

    # -- chdb helpers
    def q(self, sql, fmt="CSV"):
        return self.sess.query(sql, fmt)

    def q_json_rows(self, sql):
        res = self.q(sql, "JSONEachRow")
        data = res.bytes() if hasattr(res, "bytes") else bytes(res)
        return [json.loads(l) for l in data.decode().splitlines() if l.strip()]

    def q_columns_and_rows(self, sql):
        res = self.q(sql, "JSONCompact")
        data = res.bytes() if hasattr(res, "bytes") else bytes(res)
        if not data.strip():
            return [], 0
        doc = json.loads(data)
        return [m["name"] for m in doc.get("meta", [])], len(doc.get("data", []))

    # -- main
    def run(self):
        lab_json = os.path.join(self.dir, "lab.json")
        try:
            with open(lab_json) as f:
                self.lab = json.load(f)
        except Exception as e:  # noqa: BLE001 - reported as a failure
            self.r.fail("lab.json", "cannot read: %s" % e)
            return self.r
        if not (self.lab.get("stack") or {}).get("clickhouse"):
            self.r.notes.append("the lab runs no ClickHouse: nothing to prove")
            return self.r
        sql_dir = os.path.join(self.dir, "sql", "clickhouse")
        files = sorted(f for f in os.listdir(sql_dir) if f.endswith(".sql")) if os.path.isdir(sql_dir) else []
        if not files:
            self.r.fail("sql/clickhouse", "no *.sql files, but the lab's stack runs ClickHouse")
            return self.r

        from chdb import session as chsession
        tmp = tempfile.mkdtemp(prefix="labgen-prove-ch-")
        try:
            self.sess = chsession.Session(tmp)
            version = self.q("SELECT version()").bytes().decode().strip().strip('"')
            self.r.notes.append("ClickHouse %s (chdb, in-process, empty database)" % version)
            statements = []
            for fn in files:
                rel = os.path.join("sql", "clickhouse", fn)
                with open(os.path.join(sql_dir, fn)) as f:
                    text = f.read()
                statements += [(rel, line, stmt) for line, stmt in split_sql(text)]
            self.execute_ddl(statements, first=True)
            if not self.r.failures:
                self.execute_ddl(statements, first=False)
            # Go on after a failed statement: the queries' errors still tell
            # whether the rest of the schema fits them.
            # Ingest first, into empty tables, then the generated rows.
            self.check_kafka_ingest()
            self.insert_rows()
            self.run_queries()
        finally:
            if self.sess is not None:
                try:
                    self.sess.close()
                except Exception:  # noqa: BLE001 - best effort
                    pass
            shutil.rmtree(tmp, ignore_errors=True)
        return self.r

    # -- 1. DDL
    def execute_ddl(self, statements, first):
        for rel, line, stmt in statements:
            where = "%s:%d" % (rel, line)
            bare = strip_comments(stmt)
            is_kafka = bool(KAFKA_ENGINE.search(bare))
            m = CREATE_NAME.match(bare)
            name = unquote_name(m.group(2)) if m else None
            run = stmt
            if is_kafka and self.broker:
                run = self.local_broker_ddl(stmt)
                if first:
                    err = self.create_topic(kafka_setting(strip_comments(run), "kafka_topic_list"))
                    if err:
                        self.r.fail(where, "create the topic on the local broker: %s" % err)
                        continue
            try:
                self.q(run)
            except Exception as e:  # noqa: BLE001 - ClickHouse's message is the report
                msg = error_text(e)
                # chdb 4.4 answers CREATE of a Kafka-engine table with
                # "Code: 49 ... Shutdown was called" although the table is
                # created and, given a broker, consumes (check_kafka_ingest).
                # Only that exact case passes; anything else is a failure.
                if not (is_kafka and "Shutdown was called" in msg and name and self.table_engine(name) == "Kafka"):
                    self.r.fail(where if first else where + " (second run of the file)", msg, run)
                    continue
                if not self.shutdown_noted:
                    self.shutdown_noted = True
                    self.r.notes.append("chdb answers CREATE of a Kafka-engine table with %r, yet the table is created "
                                        "(system.tables, engine Kafka) and, given a broker, consumes (the ingest check): "
                                        "not counted as a failure" % msg)
            if not first:
                continue
            self.r.executed += 1
            if is_kafka and name:
                k = {
                    "name": name, "sql": run, "where": where,
                    "run_topic": kafka_setting(strip_comments(run), "kafka_topic_list"),
                    "topic": kafka_setting(bare, "kafka_topic_list"),
                    "format": kafka_setting(bare, "kafka_format"),
                    "broker": kafka_setting(bare, "kafka_broker_list"),
                }
                self.kafka_tables.append(k)
                if self.broker:
                    try:
                        err = self.produce(k)
                    except Exception as e:  # noqa: BLE001
                        err = "produce: %s" % e
                    if err and err.startswith("this helper"):
                        k["unsupported"] = err
                    elif err:
                        self.r.fail(where, "Kafka ingest: " + err)
            if m and m.group(1).upper().startswith("MATERIALIZED"):
                to = re.search(r"\bTO\s+((?:`[^`]+`|\w+)(?:\.(?:`[^`]+`|\w+))?)", bare, re.I)
                src = re.search(r"\bFROM\s+((?:`[^`]+`|\w+)(?:\.(?:`[^`]+`|\w+))?)", bare, re.I)
                if to and src:
                    self.mvs.setdefault(unquote_name(src.group(1)), []).append((name, unquote_name(to.group(1))))
        if not first and not self.r.failures:
            self.r.notes.append("sql/clickhouse ran twice: the second run (an init container restarting on a kept volume) changed nothing and failed nothing")
        if first:
            for k in self.kafka_tables:
                fmt = k["format"]
                ok = fmt and self.q("SELECT count() FROM system.formats WHERE name = %s AND is_input" % sql_string(fmt)).bytes().strip() == b"1"
                if not ok:
                    self.r.fail(k["where"], "kafka_format %r is not an input format of this ClickHouse" % fmt, k["sql"])

    def local_broker_ddl(self, stmt):
        """The Kafka-engine statement pointed at the local broker, with a
        topic and consumer group of this lab's own (several labs share the
        broker). Only these three setting values change."""
        suffix = "prove%d" % self.run_index
        bare = strip_comments(stmt)
        out = set_kafka_setting(stmt, "kafka_broker_list", self.broker)
        out = set_kafka_setting(out, "kafka_topic_list", "%s.%s" % (kafka_setting(bare, "kafka_topic_list"), suffix))
        return set_kafka_setting(out, "kafka_group_name", "%s-%s" % (kafka_setting(bare, "kafka_group_name") or "g", suffix))

    def create_topic(self, topic):
        """Create the topic before the Kafka table subscribes to it (as the
        lab's kafka-init container does), so the consumer needs no metadata
        refresh to find it."""
        from confluent_kafka.admin import AdminClient, NewTopic
        adm = AdminClient({"bootstrap.servers": self.broker})
        fut = adm.create_topics([NewTopic(topic, num_partitions=1, replication_factor=1)], operation_timeout=30)
        try:
            fut[topic].result(60)
        except Exception as e:  # noqa: BLE001
            return str(e)
        return None

    def table_engine(self, name):
        db, _, t = name.rpartition(".")
        db_expr = sql_string(db) if db else "currentDatabase()"
        out = self.q("SELECT engine FROM system.tables WHERE database = %s AND name = %s" % (db_expr, sql_string(t)))
        return out.bytes().decode().strip().strip('"')

    # -- 2. rows
    def insert_rows(self):
        choices = string_choices(self.lab)
        tables = self.q_json_rows(
            "SELECT database, name, engine FROM system.tables "
            "WHERE database NOT IN ('system', 'INFORMATION_SCHEMA', 'information_schema') "
            "AND engine LIKE '%MergeTree' ORDER BY database, name")
        for t in tables:
            full = "%s.%s" % (t["database"], t["name"])
            qfull = "`%s`.`%s`" % (t["database"], t["name"])
            cols = self.q_json_rows(
                "SELECT name, type FROM system.columns WHERE database = %s AND table = %s "
                "AND default_kind NOT IN ('MATERIALIZED', 'ALIAS', 'EPHEMERAL') ORDER BY position"
                % (sql_string(t["database"]), sql_string(t["name"])))
            values = ["(%s)" % ", ".join(value_literal(c["type"], c["name"], i, choices) for c in cols) for i in range(3)]
            sql = "INSERT INTO %s (%s) VALUES %s" % (qfull, ", ".join("`%s`" % c["name"] for c in cols), ", ".join(values))
            try:
                self.q(sql)
            except Exception as e:  # noqa: BLE001
                self.r.fail("rows for %s (generated from system.columns)" % full, error_text(e), sql)
                continue
            self.rows[full] = self.fetch_rows(qfull, cols)
        if self.rows:
            self.r.notes.append("3 rows inserted into each of %d MergeTree tables: %s" % (len(self.rows), ", ".join(sorted(self.rows))))

    def fetch_rows(self, qfull, cols):
        sel = ", ".join("toString(`%s`) AS `%s`" % (c["name"], c["name"]) for c in cols)
        return self.q_json_rows("SELECT %s FROM %s" % (sel, qfull))

    # -- 3. Kafka ingest
    def lab_key_for_topic(self, topic):
        """The key columns of the lab table whose Kafka store is topic: the
        message key Flink's upsert-kafka sink writes."""
        for t in self.lab.get("tables") or []:
            for s in t.get("stores") or []:
                if s.get("kind") == "kafka" and s.get("name") == topic:
                    return t.get("key") or []
        return []

    def produce(self, k):
        """Produce Flink-shaped messages into k's topic right after its
        Kafka table is created: three rows (one with NULLs where the type
        is Nullable) and, after the first, a tombstone of its key."""
        if self.producer is None:
            from confluent_kafka import Producer
            self.producer = Producer({"bootstrap.servers": self.broker, "linger.ms": 0, "acks": "all"})
        db, _, t = k["name"].rpartition(".")
        cols = self.q_json_rows(
            "SELECT name, type FROM system.columns WHERE database = %s AND table = %s ORDER BY position"
            % (sql_string(db), sql_string(t)))
        key_cols = self.lab_key_for_topic(k["topic"])
        choices = string_choices(self.lab)
        msgs = []
        for i in range(3):
            pairs = [(c["name"], flink_json_value(c["type"], c["name"], i, choices)) for c in cols]
            bad = [v for _, v in pairs if isinstance(v, Unsupported)]
            if bad:
                return "this helper writes no Flink JSON for type %s" % bad[0]
            key = json_object([(n, v) for n, v in pairs if n in key_cols]) if key_cols else None
            msgs.append((key, json_object(pairs)))
            if i == 0:
                # The retraction a regular left join emits before the joined
                # row: upsert-kafka writes it as a tombstone (null value).
                msgs.append((key, None))
        for key, value in msgs:
            self.producer.produce(k["run_topic"], key=key.encode() if key else None,
                                  value=value.encode() if value is not None else None)
        left = self.producer.flush(30)
        if left:
            return "%d messages not delivered to the broker %s within 30 s" % (left, self.broker)
        k["msgs"] = msgs
        return None

    def check_kafka_ingest(self):
        if not self.kafka_tables:
            return
        names = ", ".join(k["name"] for k in self.kafka_tables)
        if not self.broker:
            why = self.broker_missing or "no broker given (prove/prove.sh runs this check under internal/testkafka/withbroker)"
            if os.environ.get("LABGEN_TEST_SERVERS") == "require":
                self.r.fail("Kafka ingest into %s" % names, "LABGEN_TEST_SERVERS=require and no Kafka broker: " + why)
                return
            self.r.skip("Kafka ingest into %s (Kafka-engine tables and views created; messages never read)" % names,
                        "needs a live broker: " + why)
            return
        for k in self.kafka_tables:
            targets = self.mvs.get(k["name"], [])
            if not targets:
                self.r.skip("Kafka ingest from %s" % k["name"], "no materialized view reads it")
                continue
            if k.get("unsupported"):
                self.r.skip("Kafka ingest into %s" % k["name"], k["unsupported"])
                continue
            msgs = k.get("msgs")
            if not msgs:
                continue  # producing failed and was reported
            expected = sum(1 for _, v in msgs if v is not None)
            for mv, target in targets:
                deadline = time.time() + 60
                got = 0
                while time.time() < deadline:
                    got = int(self.q("SELECT count() FROM %s" % target).bytes().strip() or 0)
                    if got >= expected:
                        break
                    time.sleep(0.2)
                if got != expected:
                    exc = self.q("SELECT arrayStringConcat(exceptions.text, ' | ') FROM system.kafka_consumers "
                                 "WHERE database || '.' || table = %s" % sql_string(k["name"])).bytes().decode().strip().strip('"')
                    self.r.fail("%s → %s via %s" % (k["where"], target, mv),
                                "%d of %d produced rows arrived after 60 s%s"
                                % (got, expected, "; consumer errors: " + exc if exc else ""),
                                "\n".join("key %s value %s" % (key, v) for key, v in msgs))
                    continue
                bad = self.check_ingested_values(target, msgs)
                if bad:
                    self.r.fail("%s → %s via %s" % (k["where"], target, mv), bad)
                    continue
                self.r.notes.append("Kafka ingest: %d Flink-style JSON messages and 1 tombstone on topic %s reached %s "
                                    "through %s, every value as sent" % (expected, k["run_topic"], target, mv))

    def check_ingested_values(self, target, msgs):
        """Each message's row must be in target with every value equal to
        the JSON text read as a SQL literal of the column's type: no
        truncated fractions, shifted time zones or rounded decimals."""
        db, _, t = target.rpartition(".")
        types = {c["name"]: c["type"] for c in self.q_json_rows(
            "SELECT name, type FROM system.columns WHERE database = %s AND table = %s"
            % (sql_string(db), sql_string(t)))}
        for _, value in msgs:
            if value is None:
                continue
            conds = []
            for col, v in json.loads(value).items():
                if col not in types:
                    continue
                if v is None:
                    conds.append("`%s` IS NULL" % col)
                else:
                    text = json.dumps(v) if not isinstance(v, str) else v
                    conds.append("`%s` = CAST(%s AS %s)" % (col, sql_string(text), types[col]))
            sql = "SELECT count() FROM `%s`.`%s` WHERE %s" % (db, t, " AND ".join(conds))
            n = self.q(sql).bytes().strip()
            if n != b"1":
                got = self.q("SELECT * FROM `%s`.`%s`" % (db, t), "JSONEachRow").bytes().decode()
                return "message %s: %s rows match its values as SQL literals (want 1); the table holds:\n%s" % (value, n.decode(), got)
        return None

    # -- 4. presets and steps
    def run_queries(self):
        try:
            self.q("SET readonly = 1")
        except Exception as e:  # noqa: BLE001
            self.r.fail("SET readonly = 1", error_text(e))
            return
        for p in self.lab.get("presets") or []:
            if p.get("engine") != "clickhouse":
                continue
            what = "preset %s" % p["name"]
            if p.get("unavailable"):
                self.r.skip(what, "unavailable in this stack: " + p["unavailable"])
                continue
            self.run_query(what, p["sql"], None)
        steps = [(e, s) for e in self.lab.get("experiments") or [] for s in e.get("steps") or []
                 if s.get("kind") == "query" and (s.get("query") or {}).get("engine") == "clickhouse"]
        if not steps:
            return
        evaluated, err = step_sql(self.dir)
        if err:
            self.r.fail("query steps", "cannot evaluate the steps' SQL: " + err)
            return
        for e, s in steps:
            what = "experiment %s step %s" % (e["name"], s["name"])
            if e.get("unavailable"):
                self.r.skip(what, "experiment unavailable in this stack: " + e["unavailable"])
                continue
            ev = evaluated.get((e["name"], s["name"]))
            if ev is None:
                self.r.fail(what, "stepsql printed nothing for this step")
            elif ev.get("error"):
                self.r.fail(what, "the runtime cannot evaluate this step's SQL (schemas.Expr.Eval): " + ev["error"],
                            s["query"]["sql"].get("expr"))
            else:
                self.run_query(what, ev["sql"], (e, s))

    def run_query(self, what, sql, step):
        sql, missing = self.substitute(sql)
        if missing:
            self.r.skip(what, missing)
            return
        try:
            columns, nrows = self.q_columns_and_rows(sql)
        except Exception as e:  # noqa: BLE001
            self.r.fail(what, error_text(e), sql)
            return
        self.r.queries += 1
        if self.verbose:
            self.r.notes.append("%s: %d rows, columns %s" % (what, nrows, ", ".join(columns)))
        if step:
            for col, use in result_columns_used(step[1]):
                if col not in columns:
                    self.r.fail(what, "%s reads result column %r, which the query does not return (it returns: %s)"
                                % (use, col, ", ".join(columns)), sql)

    def substitute(self, sql):
        """Replace the markers ⟦experiment.step.capture⟧ that stepsql leaves
        for captured values with a value of a matching column."""
        missing = []

        def repl(m):
            val, why = self.capture_value(m.group(1))
            if val is None:
                missing.append("%s: %s" % (m.group(0), why))
                return m.group(0)
            return val

        out = re.sub("\u27e6([^\u27e7]*)\u27e7", repl, sql)
        return out, "; ".join(missing)

    def capture_value(self, ref):
        exp_name, step_name, cap = (ref.split(".") + ["", "", ""])[:3]
        exp = next((e for e in self.lab.get("experiments") or [] if e["name"] == exp_name), None)
        src = next((s for s in (exp or {}).get("steps") or [] if s["name"] == step_name), None)
        capture = next((c for c in (src or {}).get("captures") or [] if c["name"] == cap), None)
        if capture is None:
            return None, "no capture %s in lab.json" % ref
        # The capture's name, then the result columns its expression reads.
        candidates = [cap]
        for col, _ in columns_in_expr(capture["value"].get("expr") or ""):
            if col not in candidates:
                candidates.append(col)
        for col in candidates:
            for t in self.rows:
                for row in self.rows[t]:
                    v = row.get(col)
                    if v is not None:
                        return v, None
        return None, "no inserted ClickHouse row has a column named %s (the value comes from a %s step)" % (
            " or ".join(candidates), (src.get("query") or {}).get("engine", src.get("kind")))


def step_sql(lab_dir):
    """Run stepsql (the runtime's evaluation of step SQL) on lab.json:
    {(experiment, step): {"sql": ...} or {"error": ...}}, error text."""
    import subprocess
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    lab_json = os.path.abspath(os.path.join(lab_dir, "lab.json"))
    binary = os.environ.get("LABGEN_STEPSQL")
    cmd = [binary, lab_json] if binary else ["go", "run", "./prove/clickhouse/stepsql", lab_json]
    try:
        p = subprocess.run(cmd, cwd=root, capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as e:
        return None, "%s: %s" % (" ".join(cmd), e)
    if p.returncode != 0:
        return None, "%s: %s" % (" ".join(cmd), (p.stderr or p.stdout).strip())
    out = {}
    for line in p.stdout.splitlines():
        d = json.loads(line)
        out[(d["experiment"], d["step"])] = d
    return out, None


def columns_in_expr(expr):
    """(column, how) pairs an HCL expression reads from a query result:
    result.rows[N].col, and r.col where `for r in result.rows`."""
    out = []
    for m in re.finditer(r"result\.rows\[[^\]]*\]\.(\w+)", expr):
        out.append((m.group(1), m.group(0)))
    for var in set(re.findall(r"\bfor\s+(?:\w+\s*,\s*)?(\w+)\s+in\s+result\.rows\b", expr)):
        for m in re.finditer(r"\b%s\.(\w+)" % re.escape(var), expr):
            out.append((m.group(1), m.group(0)))
    return out


def result_columns_used(step):
    used = []
    for c in step.get("captures") or []:
        for col, how in columns_in_expr(c["value"].get("expr") or ""):
            used.append((col, "capture %s (%s)" % (c["name"], how)))
    for x in step.get("expects") or []:
        for col, how in columns_in_expr(x["condition"].get("expr") or ""):
            used.append((col, "expect (%s)" % how))
    return used


# ---------------------------------------------------------------- main

def print_report(r):
    print("clickhouse: %s" % r.lab_dir)
    for n in r.notes:
        print("  %s" % n)
    for what, why in r.not_checkable:
        print("  NOT CHECKABLE %s: %s" % (what, why))
    for where, msg, sql in r.failures:
        print("  FAIL %s: %s" % (where, msg))
        if sql:
            for l in sql.strip().splitlines():
                print("      | %s" % l)
    print("  %d statements executed / %d queries run / %d not checkable%s"
          % (r.executed, r.queries, len(r.not_checkable),
             " / %d FAILED" % len(r.failures) if r.failures else ""))


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("lab_dirs", nargs="+", metavar="DIR", help="rendered lab directory")
    ap.add_argument("-v", "--verbose", action="store_true", help="print each query's row count and columns")
    args = ap.parse_args(argv)
    broker = os.environ.get("LABGEN_KAFKA_BROKER", "")
    broker_missing = os.environ.get("LABGEN_KAFKA_BROKER_MISSING", "")
    totals = [0, 0, 0, 0]
    for i, d in enumerate(args.lab_dirs):
        t0 = time.time()
        r = Prover(d, broker, broker_missing, i + 1, args.verbose).run()
        print_report(r)
        print("  (%.1f s)" % (time.time() - t0))
        totals[0] += r.executed
        totals[1] += r.queries
        totals[2] += len(r.not_checkable)
        totals[3] += len(r.failures)
    print("%s %d statements executed / %d queries run / %d not checkable / %d failed (%d labs)"
          % (SUMMARY_PREFIX, totals[0], totals[1], totals[2], totals[3], len(args.lab_dirs)))
    return 1 if totals[3] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
