#!/usr/bin/env python3
"""ClickHouse's HTTP interface in front of one chdb session (labgen's native stack).

chdb is ClickHouse in-process and cannot open listeners, so this small
server answers ClickHouse's HTTP protocol as far as labgen, clickhouse-go
and curl need it: GET /ping, GET|POST / with the query in query= and/or the
body, default_format / FORMAT, database, settings as parameters, users
(basic auth, X-ClickHouse-User/Key or user/password parameters; an admin and
a read-only reader) and ClickHouse's error bodies, codes and statuses.

    front.py --path DIR [--port 8123] [--schema FILE]
             [--user NAME:PASSWORD] [--reader NAME:PASSWORD]

Users default to $CLICKHOUSE_USER/$CLICKHOUSE_PASSWORD and
$CLICKHOUSE_READER_USER/$CLICKHOUSE_READER_PASSWORD; with neither, "default"
without a password is the admin.
"""

import argparse
import base64
import json
import os
import re
import shutil
import signal
import struct
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qsl, urlsplit

from chdb import session as chdb_session

# HTTP parameters that are not settings (ClickHouse's HTTPHandler reserves them).
RESERVED = {
    "query", "database", "default_format", "user", "password", "quota_key",
    "query_id", "session_id", "session_timeout", "session_check", "compress",
    "decompress", "buffer_size", "wait_end_of_query", "stacktrace", "role",
    "client_protocol_version", "enable_http_compression", "http_zlib_compression_level",
    "http_native_compression_disable_checksumming_on_decompress", "add_http_cors_header",
    "send_progress_in_http_headers", "http_headers_progress_interval_ms",
    "cancel_http_readonly_queries_on_client_close", "query_kind",
}
# The reader's profile, as the rendered users.xml has it.
READER_PROFILE = {"readonly": "1", "max_execution_time": "30"}
# Settings the reader may change although read-only, as a profile's
# <constraints><S><changeable_in_readonly/></S></constraints> allows:
# clickhouse-go sends max_execution_time with every query whose context has
# a deadline, which readonly=1 alone refuses.
CHANGEABLE_IN_READONLY = {"max_execution_time"}
READ_KINDS = {"SELECT", "WITH", "SHOW", "DESCRIBE", "DESC", "EXPLAIN", "EXISTS"}
# ClickHouse's HTTP statuses for exception codes (HTTPHandler.cpp).
STATUS = {194: 401, 192: 403, 193: 403, 516: 403, 497: 403, 164: 403,
          62: 400, 6: 400, 27: 400, 38: 400, 41: 400, 53: 400, 72: 400, 117: 400,
          60: 404, 46: 404, 47: 404, 50: 404, 56: 404, 73: 404, 81: 404, 115: 404,
          159: 408, 48: 501}
ERR_RE = re.compile(r"Code: (\d+)\. DB::Exception: (.*)", re.S)
NAME_RE = re.compile(r"\(([A-Z][A-Z0-9_]+)\)(?: \(version [^)]*\))?\.?\s*$")
HELLO_RE = re.compile(r"^\s*SELECT\s+displayName\(\),\s*version\(\),\s*revision\(\),\s*timezone\(\)\s*;?\s*$", re.I)
FORMAT_RE = re.compile(r"\bFORMAT\s+(\w+)\s*;?\s*$", re.I)
KAFKA_RE = re.compile(r"\bENGINE\s*=\s*Kafka\b", re.I)
CREATE_RE = re.compile(
    r"^\s*CREATE\s+(?:OR\s+REPLACE\s+)?TABLE\s+(?:IF\s+NOT\s+EXISTS\s+)?((?:`[^`]+`|\w+)(?:\.(?:`[^`]+`|\w+))?)",
    re.I)
# clickhouse-go decodes Native blocks at this revision and later with a
# "custom serialization" byte per column (DBMS_MIN_REVISION_WITH_CUSTOM_SERIALIZATION).
CUSTOM_SERIALIZATION_REVISION = 54454


class CHError(Exception):
    def __init__(self, code, message, name):
        super().__init__(message)
        self.code, self.message, self.name = code, message, name

    def body(self, version):
        return "Code: %d. DB::Exception: %s. (%s) (version %s)\n" % (
            self.code, self.message.rstrip("."), self.name, version)


def from_chdb(exc):
    """A CHError from chdb's exception text, keeping ClickHouse's words."""
    text = str(exc).strip()
    m = ERR_RE.match(text)
    if not m:
        return CHError(1001, text, "STD_EXCEPTION")
    msg = m.group(2)
    # chdb sometimes wraps an exception in another of the same code.
    inner = ERR_RE.match(msg)
    if inner and inner.group(1) == m.group(1):
        msg = inner.group(2)
    name = "UNKNOWN_EXCEPTION"
    n = NAME_RE.search(msg)
    if n:
        name, msg = n.group(1), msg[:n.start()].rstrip()
    return CHError(int(m.group(1)), msg.rstrip("."), name)


def log(msg):
    sys.stderr.write("%s chdb-front: %s\n" % (time.strftime("%Y-%m-%dT%H:%M:%S"), msg))
    sys.stderr.flush()


# ---------------------------------------------------------------- SQL text

def split_sql(text):
    """Statements of text split at top-level semicolons (quotes and comments respected)."""
    out, i, n, begin, significant = [], 0, len(text), 0, False
    while i < n:
        c = text[i]
        if text.startswith("--", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        elif c == ";":
            if significant:
                out.append(text[begin:i].strip())
            begin, significant, i = i + 1, False, i + 1
        elif c in "'\"`":
            significant, i = True, i + 1
            while i < n and text[i] != c:
                i += 2 if text[i] == "\\" else 1
            i += 1
        else:
            significant = significant or not c.isspace()
            i += 1
    if significant:
        out.append(text[begin:].strip())
    return out


def strip_comments(sql):
    """The statement without comments, for matching (not for running)."""
    return re.sub(r"--[^\n]*|/\*.*?\*/", " ", sql, flags=re.S)


def kind(sql):
    """The statement's first keyword, upper-case, past comments and brackets."""
    m = re.match(r"[\s(]*([A-Za-z]+)", strip_comments(sql))
    return m.group(1).upper() if m else ""


def unquote(name):
    return ".".join(a or b for a, b in re.findall(r"`([^`]+)`|(\w+)", name))


# ---------------------------------------------------------------- engine

class Engine:
    """One chdb session; chdb is not reentrant and reuses its result buffer,
    so calls are serialized and the bytes copied under the lock."""

    def __init__(self, path):
        self.path = path
        self.lock = threading.Lock()
        self.db = "default"
        self.session = self._open()
        self.version = self.run("SELECT version()", "TSV")[0].decode().strip()
        self.timezone = self.run("SELECT timezone()", "TSV")[0].decode().strip()

    def _open(self):
        try:
            return chdb_session.Session(self.path)
        except Exception as exc:
            moved = self._move_kafka_tables_aside()
            if not moved:
                raise
            log("reopening %s failed (%s); moved the Kafka-engine tables %s aside, the schema re-creates them"
                % (self.path, str(exc).splitlines()[0][:200], ", ".join(moved)))
            return chdb_session.Session(self.path)

    def _move_kafka_tables_aside(self):
        """chdb cannot start a Kafka-engine table it loads from disk
        ("Shutdown was called"), so their metadata files (ENGINE = Kafka in
        metadata/<db>/<table>.sql) go to kafka-aside/. Their consumer offsets
        live in Kafka's consumer group, so re-creating them loses nothing."""
        meta, moved = os.path.join(self.path, "metadata"), []
        if not os.path.isdir(meta):
            return moved
        aside = os.path.join(self.path, "kafka-aside", time.strftime("%Y%m%dT%H%M%S"))
        for db in sorted(os.listdir(meta)):
            ddir = os.path.join(meta, db)
            if not os.path.isdir(ddir):
                continue
            for f in sorted(os.listdir(ddir)):
                p = os.path.join(ddir, f)
                if not f.endswith(".sql"):
                    continue
                with open(p, encoding="utf-8", errors="replace") as fh:
                    if not KAFKA_RE.search(fh.read()):
                        continue
                os.makedirs(os.path.join(aside, db), exist_ok=True)
                shutil.move(p, os.path.join(aside, db, f))
                moved.append("%s.%s" % (db, f[:-4]))
        return moved

    def run(self, sql, fmt, database=None, params=None):
        """(bytes, rows_read, bytes_read) of one statement, or CHError."""
        with self.lock:
            try:
                if database and database != self.db:
                    self.session.query("USE `%s`" % database.replace("`", "\\`"), "TSV")
                    self.db = database
                r = self.session.query(sql, fmt, params=params or None)
                return bytes(r.bytes()), r.rows_read(), r.bytes_read()
            except Exception as exc:
                raise from_chdb(exc) from None

    def close(self):
        with self.lock:
            try:
                self.session.close()
            except Exception as exc:
                log("closing: %s" % exc)

    def apply_schema(self, text):
        """Run a multi-statement schema file; idempotent when its CREATEs say IF NOT EXISTS."""
        for stmt in split_sql(text):
            try:
                self.run(stmt, "TSV")
            except CHError as e:
                m = CREATE_RE.match(strip_comments(stmt))
                # A Kafka-engine CREATE answers "Shutdown was called" in chdb, yet the table is made.
                if e.code == 49 and m and KAFKA_RE.search(stmt):
                    exists = self.run("EXISTS TABLE %s" % m.group(1), "TSV")[0].strip()
                    if exists == b"1":
                        continue
                raise CHError(e.code, "%s (schema statement: %s)" % (
                    e.message, " ".join(strip_comments(stmt).split())[:120]), e.name)


def native_hello(display, version, tz, protocol_version):
    """The Native block answering clickhouse-go's first query.

    chdb writes Native at revision 0 (no BlockInfo, no per-column
    custom-serialization byte) whatever client_protocol_version asks for, and clickhouse-go decodes
    later answers at the revision this query reports: so the block is encoded
    here at the client's revision, and reports revision 0."""
    def s(b):
        b = b.encode()
        out, n = bytearray(), len(b)
        while True:
            out.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
            n >>= 7
            if not n:
                return bytes(out) + b
    # At a revision > 0 a block starts with its BlockInfo (is_overflows=0,
    # bucket_num=-1), as over TCP.
    info = b"\x01\x00\x02\xff\xff\xff\xff\x00" if protocol_version > 0 else b""
    flag = b"\x00" if protocol_version >= CUSTOM_SERIALIZATION_REVISION else b""
    cols = [("displayName()", "String", s(display)), ("version()", "String", s(version)),
            ("revision()", "UInt32", struct.pack("<I", 0)), ("timezone()", "String", s(tz))]
    return info + b"\x04\x01" + b"".join(s(n) + s(t) + flag + v for n, t, v in cols)


def varstr(b):
    """A Native string: its length as a varuint, then its bytes."""
    b = b.encode()
    out, n = bytearray(), len(b)
    while True:
        out.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            return bytes(out) + b


def native_header(columns):
    """An empty Native block at revision 0 (what the front reports): the
    column count, zero rows, then each column's name and type."""
    if not columns or len(columns) > 127:
        return b""
    return bytes([len(columns), 0]) + b"".join(varstr(n) + varstr(t) for n, t in columns)


# ---------------------------------------------------------------- HTTP

CONTENT_TYPES = {"Native": "application/octet-stream", "RowBinary": "application/octet-stream",
                 "TabSeparated": "text/tab-separated-values; charset=UTF-8",
                 "TSV": "text/tab-separated-values; charset=UTF-8", "CSV": "text/csv; charset=UTF-8"}


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "chdb-front"
    # Headers and body go out in two writes; with Nagle's algorithm the
    # client's delayed ACK adds ≈40 ms to every answer.
    disable_nagle_algorithm = True
    engine = None
    users = {}  # name -> (password, is_reader)

    def log_message(self, fmt, *args):  # one line per request is written in handle_query
        pass

    def do_GET(self):
        self.handle_query()

    def do_POST(self):
        self.handle_query()

    def handle_query(self):
        start = time.monotonic()
        url = urlsplit(self.path)
        params = dict(parse_qsl(url.query, keep_blank_values=True))
        n = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(n) if n else b""
        user, status, size, sql = "-", 200, 0, ""
        try:
            if url.path in ("/ping", "/play") or (url.path == "/" and "query" not in params and not body):
                self.reply(200, b"Ok.\n", {"Content-Type": "text/plain; charset=UTF-8"})
                status, size = 200, 4
                return
            if url.path != "/":
                raise CHError(0, "There is no handle %s" % url.path, "NO_HANDLER")  # 404 below
            user, reader = self.authenticate(params)
            sql = params.get("query", "")
            if body:
                sql = sql + ("\n" if sql else "") + body.decode("utf-8")
            status, size = self.execute(sql, params, reader)
        except CHError as e:
            status = 404 if e.name == "NO_HANDLER" else STATUS.get(e.code, 500)
            out = e.body(self.engine.version).encode()
            size = len(out)
            self.reply(status, out, {"Content-Type": "text/plain; charset=UTF-8",
                                     "X-ClickHouse-Exception-Code": str(e.code)})
        finally:
            shown = ["%s=%s" % kv for kv in sorted(params.items()) if kv[0] not in ("query", "password")]
            log("%s %s %d %dB %.1fms %s [%s]" % (user, self.command, status, size,
                                                  (time.monotonic() - start) * 1000,
                                                  " ".join(sql.split())[:160], " ".join(shown)))

    def authenticate(self, params):
        name = self.headers.get("X-ClickHouse-User") or params.get("user")
        password = self.headers.get("X-ClickHouse-Key") or params.get("password") or ""
        auth = self.headers.get("Authorization", "")
        if not name and auth.startswith("Basic "):
            try:
                name, _, password = base64.b64decode(auth[6:]).decode().partition(":")
            except Exception:
                name = None
        name = name or "default"
        known = self.users.get(name)
        if known is None or known[0] != password:
            raise CHError(516, "%s: Authentication failed: password is incorrect, or there is no user with such name"
                          % name, "AUTHENTICATION_FAILED")
        return name, known[1]

    def execute(self, sql, params, reader):
        stmts = [sql] if kind(sql) == "INSERT" else split_sql(sql)
        if not stmts:
            raise CHError(62, "Empty query", "SYNTAX_ERROR")
        if len(stmts) > 1:
            raise CHError(62, "Syntax error (Multi-statements are not allowed)", "SYNTAX_ERROR")
        stmt = stmts[0]
        settings = {k: v for k, v in params.items() if k not in RESERVED and not k.startswith("param_")}
        readonly = settings.get("readonly", "0")
        if reader:
            for k, v in settings.items():
                if READER_PROFILE.get(k) != v and k not in CHANGEABLE_IN_READONLY and not (
                        k == "readonly" and v in ("1", "2")):
                    raise CHError(164, "Cannot modify '%s' setting in readonly mode" % k, "READONLY")
            settings = dict(READER_PROFILE, **settings)
            readonly = "1"
        if self.command == "GET" and readonly == "0":
            readonly = "2"  # as ClickHouse: GET implies readonly
        k = kind(stmt)
        if readonly != "0" and k not in READ_KINDS:
            extra = ""
            if self.command == "GET" and not reader and settings.get("readonly", "0") == "0":
                extra = ". For queries over HTTP, method GET implies readonly. You should use method POST for modifying queries"
            raise CHError(164, "Cannot execute query in readonly mode%s" % extra, "READONLY")
        fm = FORMAT_RE.search(stmt)
        fmt = fm.group(1) if fm else params.get("default_format") or "TabSeparated"
        if k in READ_KINDS:
            if readonly != "0":
                settings["readonly"] = readonly
            if settings:
                # The query's own SETTINGS clause: readonly last, so that it
                # refuses later changes as ClickHouse's profile would.
                items = sorted(settings.items(), key=lambda kv: kv[0] == "readonly")
                # (changeable_in_readonly ones come first too: the front checked them.)
                stmt = stmt.rstrip().rstrip(";") + "\nSETTINGS " + ", ".join(
                    "%s = %s" % (key, literal(v)) for key, v in items)
        qp = {k[6:]: v for k, v in params.items() if k.startswith("param_")}
        t0 = time.monotonic()
        if fmt == "Native" and HELLO_RE.match(stmts[0]):
            out, rows, nbytes = native_hello("chdb", self.engine.version, self.engine.timezone,
                                             int(params.get("client_protocol_version") or 0)), 0, 0
        else:
            out, rows, nbytes = self.engine.run(stmt, fmt, params.get("database"), qp)
            if fmt == "Native" and not out and k in READ_KINDS:
                # ClickHouse answers an empty result with a header block (the
                # columns, no rows); chdb with nothing. Clients need the columns.
                meta = json.loads(self.engine.run(stmt, "JSONCompact", params.get("database"), qp)[0] or b"{}")
                out = native_header([(c["name"], c["type"]) for c in meta.get("meta", [])])
        summary = {"read_rows": str(rows), "read_bytes": str(nbytes), "written_rows": "0",
                   "written_bytes": "0", "total_rows_to_read": str(rows), "result_rows": "0",
                   "result_bytes": str(len(out)), "elapsed_ns": str(int((time.monotonic() - t0) * 1e9))}
        self.reply(200, out, {
            "Content-Type": CONTENT_TYPES.get(fmt, "application/json; charset=UTF-8" if fmt.startswith("JSON")
                                              else "text/plain; charset=UTF-8"),
            "X-ClickHouse-Format": fmt,
            "X-ClickHouse-Query-Id": params.get("query_id") or str(uuid.uuid4()),
            "X-ClickHouse-Timezone": self.engine.timezone,
            "X-ClickHouse-Server-Display-Name": "chdb",
            "X-ClickHouse-Summary": json.dumps(summary, separators=(",", ":")),
        })
        return 200, len(out)

    def reply(self, status, body, headers):
        self.send_response(status)
        for k, v in headers.items():
            self.send_header(k, v)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


def literal(v):
    """A setting's value as SQL: numbers as they are, anything else quoted."""
    if re.fullmatch(r"-?\d+(\.\d+)?", v):
        return v
    return "'" + v.replace("\\", "\\\\").replace("'", "\\'") + "'"


def parse_user(text, what):
    name, sep, password = (text or "").partition(":")
    if not name or not sep:
        sys.exit("front.py: %s %r: want NAME:PASSWORD" % (what, text))
    return name, password


def main(argv):
    ap = argparse.ArgumentParser(description="ClickHouse's HTTP interface in front of chdb")
    ap.add_argument("--path", required=True, help="chdb's data directory (kept across restarts)")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8123)
    ap.add_argument("--schema", help="SQL file applied after opening (idempotent)")
    ap.add_argument("--user", help="admin NAME:PASSWORD (default $CLICKHOUSE_USER:$CLICKHOUSE_PASSWORD)")
    ap.add_argument("--reader", help="read-only NAME:PASSWORD (default $CLICKHOUSE_READER_USER:…)")
    args = ap.parse_args(argv)

    users = {}
    admin = args.user or (os.environ.get("CLICKHOUSE_USER") and
                          "%s:%s" % (os.environ["CLICKHOUSE_USER"], os.environ.get("CLICKHOUSE_PASSWORD", "")))
    reader = args.reader or (os.environ.get("CLICKHOUSE_READER_USER") and "%s:%s" % (
        os.environ["CLICKHOUSE_READER_USER"], os.environ.get("CLICKHOUSE_READER_PASSWORD", "")))
    if admin:
        n, p = parse_user(admin, "--user")
        users[n] = (p, False)
    if reader:
        n, p = parse_user(reader, "--reader")
        users[n] = (p, True)
    if not admin:
        users.setdefault("default", ("", False))

    t0 = time.monotonic()
    os.makedirs(args.path, exist_ok=True)
    engine = Engine(args.path)
    if args.schema:
        with open(args.schema, encoding="utf-8") as f:
            engine.apply_schema(f.read())
    Handler.engine, Handler.users = engine, users
    httpd = ThreadingHTTPServer((args.host, args.port), Handler)
    httpd.daemon_threads = True

    def stop(signum, frame):
        threading.Thread(target=httpd.shutdown, daemon=True).start()
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    log("ClickHouse %s (chdb) on %s, HTTP on %s:%d, users %s; ready in %.2fs" % (
        engine.version, args.path, args.host, httpd.server_address[1],
        ", ".join("%s%s" % (u, " (read-only)" if r else "") for u, (_, r) in sorted(users.items())),
        time.monotonic() - t0))
    try:
        httpd.serve_forever(poll_interval=0.2)
    finally:
        httpd.server_close()
        engine.close()
        log("stopped")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except CHError as e:
        sys.stderr.write("front.py: Code: %d. DB::Exception: %s. (%s)\n" % (e.code, e.message, e.name))
        sys.exit(1)
