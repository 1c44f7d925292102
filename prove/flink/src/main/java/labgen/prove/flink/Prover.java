package labgen.prove.flink;

import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.table.api.ExplainFormat;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.api.internal.TableEnvironmentInternal;
import org.apache.flink.table.catalog.Catalog;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.operations.BeginStatementSetOperation;
import org.apache.flink.table.operations.EndStatementSetOperation;
import org.apache.flink.table.operations.ExplainOperation;
import org.apache.flink.table.operations.ModifyOperation;
import org.apache.flink.table.operations.Operation;
import org.apache.flink.table.operations.QueryOperation;
import org.apache.flink.table.operations.StatementSetOperation;
import org.apache.flink.table.operations.command.ResetOperation;
import org.apache.flink.table.operations.command.SetOperation;
import org.apache.flink.table.operations.ddl.AlterOperation;
import org.apache.flink.table.operations.ddl.CreateCatalogOperation;
import org.apache.flink.table.operations.ddl.CreateDatabaseOperation;
import org.apache.flink.table.operations.ddl.CreateTableOperation;
import org.apache.flink.table.operations.ddl.DropOperation;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Proves one SQL file after another through Flink's parser and planner. */
final class Prover {

    static final class Options {
        boolean plans;
        boolean stack;
        boolean fullErrors;
        boolean timings;
    }

    static final class FileResult {
        final String file;
        int executed;
        int planned;
        int live;
        int failed;
        final List<String> liveReasons = new ArrayList<>();

        FileResult(String file) {
            this.file = file;
        }
    }

    private enum Kind {
        EXECUTED,
        PLANNED,
        LIVE,
        FAILED,
        NONE
    }

    private static final Pattern RUNTIME_MODE =
            Pattern.compile(
                    "(?is)^SET\\s+['\"]?execution\\.runtime-mode['\"]?\\s*=\\s*['\"]?([A-Za-z_]+)['\"]?\\s*$");
    private static final Pattern LINE_COL = Pattern.compile("line (\\d+), column (\\d+)");
    private static final Pattern SOURCE_IN_PLAN =
            Pattern.compile("TableSourceScan\\(table=\\[\\[([^,\\]]+), ([^,\\]]+), ([^,\\]]+)");
    private static final Pattern SINK_IN_PLAN = Pattern.compile("Sink\\(table=\\[([^\\]]+)\\]");
    private static final Pattern CHANGELOG = Pattern.compile("changelogMode=\\[([^\\]]*)\\]");

    private final Path tempRoot;
    private final FlussStandin fluss;
    private final Options opts;
    private final PrintStream out;

    // per file
    private TableEnvironmentInternal env;
    private String fileName;
    private SqlSplitter.Statement stmt;
    private FileResult result;
    private final Map<String, String> flussCatalogs = new LinkedHashMap<>(); // name -> bootstrap
    private final Set<String> notes = new LinkedHashSet<>();
    private List<ModifyOperation> openStatementSet; // BEGIN STATEMENT SET; ... END;
    private int openStatementSetLine;
    private boolean hadFailure;
    private String lastPlan; // the EXPLAIN of the last planned statement (mutants compare them)

    Prover(Path tempRoot, FlussStandin fluss, Options opts, PrintStream out) {
        this.tempRoot = tempRoot;
        this.fluss = fluss;
        this.opts = opts;
        this.out = out;
    }

    FileResult prove(Path file) {
        fileName = file.toString();
        result = new FileResult(fileName);
        stmt = null;
        flussCatalogs.clear();
        notes.clear();
        openStatementSet = null;
        hadFailure = false;

        String script;
        try {
            script = new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
        } catch (IOException e) {
            out.printf("== %s%n", fileName);
            fail(0, "cannot read file", e);
            return finish();
        }
        List<SqlSplitter.Statement> statements;
        try {
            statements = SqlSplitter.split(script);
        } catch (SqlSplitter.SplitException e) {
            out.printf("== %s%n", fileName);
            failMsg(e.line, "cannot split into statements", e.getMessage());
            return finish();
        }

        // runtime mode: as the file's SET 'execution.runtime-mode' says (streaming by default,
        // as in sql-client)
        String mode = "streaming";
        int modeLine = 0;
        for (SqlSplitter.Statement s : statements) {
            Matcher m = RUNTIME_MODE.matcher(s.text.trim());
            if (m.matches()) {
                mode = m.group(1).toLowerCase(Locale.ROOT);
                modeLine = s.line;
                break;
            }
        }
        out.printf(
                "== %s  (%d statements; %s mode%s)%n",
                fileName,
                statements.size(),
                mode,
                modeLine > 0 ? " from line " + modeLine : ", the default: no SET 'execution.runtime-mode'");

        EnvironmentSettings.Builder settings = EnvironmentSettings.newInstance();
        if (mode.equals("batch")) {
            settings.inBatchMode();
        } else if (mode.equals("streaming")) {
            settings.inStreamingMode();
        } else {
            failMsg(
                    modeLine,
                    "SET 'execution.runtime-mode'",
                    "unknown runtime mode '" + mode + "' (expected 'streaming' or 'batch')");
            return finish();
        }
        env = (TableEnvironmentInternal) TableEnvironment.create(settings.build());

        for (SqlSplitter.Statement s : statements) {
            stmt = s;
            long t0 = System.nanoTime();
            proveStatement(s);
            if (opts.timings) {
                out.printf("          (%d ms)%n", (System.nanoTime() - t0) / 1_000_000);
            }
        }
        if (openStatementSet != null) {
            failMsg(
                    openStatementSetLine,
                    "BEGIN STATEMENT SET",
                    "statement set opened here is never closed with END;");
        }
        return finish();
    }

    /**
     * Proves one more statement in the environment the last {@link #prove} left (its
     * tables, views and settings), through the same path as a file's statements. Used by
     * the mutants mode. Returns the statement's counts; {@link #lastPlan()} has its plan.
     */
    FileResult proveMore(String text, String label) {
        result = new FileResult(fileName + " (" + label + ")");
        hadFailure = false;
        lastPlan = null;
        stmt = new SqlSplitter.Statement(text, 1, 1, true);
        proveStatement(stmt);
        return result;
    }

    String lastPlan() {
        return lastPlan;
    }

    /** The environment the last {@link #prove} ran in. */
    TableEnvironmentInternal env() {
        return env;
    }

    private FileResult finish() {
        for (String n : notes) {
            out.println("   note: " + n);
        }
        out.printf(
                "-- %s: %d executed / %d planned / %d need a live server / %d failed%n%n",
                fileName, result.executed, result.planned, result.live, result.failed);
        return result;
    }

    // ---------------------------------------------------------------- statements

    private void proveStatement(SqlSplitter.Statement s) {
        String label = label(s.text);
        if (!s.terminated) {
            notes.add(
                    "line " + s.line + ": last statement has no terminating ';' (sql-client -f"
                            + " would not run it); proved anyway");
        }
        List<Operation> ops;
        try {
            ops = env.getParser().parse(s.text);
        } catch (Throwable e) {
            fail(s.line, label, e);
            return;
        }
        if (ops.size() != 1) {
            failMsg(s.line, label, "Flink's parser returned " + ops.size() + " operations");
            return;
        }
        Operation op = ops.get(0);
        try {
            if (op instanceof SetOperation) {
                set((SetOperation) op, label);
            } else if (op instanceof ResetOperation) {
                String key = ((ResetOperation) op).getKey().orElse(null);
                if (key != null) {
                    env.getConfig()
                            .getConfiguration()
                            .removeConfig(ConfigOptions.key(key).stringType().noDefaultValue());
                }
                ok(Kind.EXECUTED, s.line, label, "applied");
            } else if (op instanceof BeginStatementSetOperation) {
                if (openStatementSet != null) {
                    failMsg(s.line, label, "statement set already open (line " + openStatementSetLine + ")");
                    return;
                }
                openStatementSet = new ArrayList<>();
                openStatementSetLine = s.line;
                ok(Kind.NONE, s.line, label, "statement set opened");
            } else if (op instanceof EndStatementSetOperation) {
                if (openStatementSet == null) {
                    failMsg(s.line, label, "END without BEGIN STATEMENT SET");
                    return;
                }
                List<Operation> set = new ArrayList<>(openStatementSet);
                openStatementSet = null;
                plan(set, label + " (statement set from line " + openStatementSetLine + ", "
                        + set.size() + " INSERTs)");
            } else if (op instanceof ModifyOperation && openStatementSet != null) {
                openStatementSet.add((ModifyOperation) op);
                ok(Kind.NONE, s.line, label, "added to the open statement set");
            } else if (op instanceof StatementSetOperation) {
                List<Operation> inner =
                        new ArrayList<>(((StatementSetOperation) op).getOperations());
                plan(inner, label + " (" + inner.size() + " INSERTs)");
            } else if (op instanceof ModifyOperation || op instanceof QueryOperation) {
                plan(Collections.singletonList(op), label);
            } else if (op instanceof ExplainOperation) {
                plan(Collections.singletonList(((ExplainOperation) op).getChild()), label);
            } else if (op instanceof CreateCatalogOperation) {
                createCatalog((CreateCatalogOperation) op, label);
            } else if (op.getClass().getSimpleName().contains("Job")) {
                live(s.line, label, "needs a live Flink cluster (" + op.getClass().getSimpleName() + ")");
            } else {
                ddl(op, label);
            }
        } catch (Throwable e) {
            fail(s.line, label, e);
        }
    }

    private void set(SetOperation op, String label) {
        if (!op.getKey().isPresent()) {
            ok(Kind.EXECUTED, stmt.line, label, "applied (prints the configuration)");
            return;
        }
        String key = op.getKey().get();
        String value = op.getValue().orElse("");
        if (key.equals("execution.runtime-mode")) {
            String current =
                    env.getConfig()
                            .getRootConfiguration()
                            .get(org.apache.flink.configuration.ExecutionOptions.RUNTIME_MODE)
                            .toString()
                            .toLowerCase(Locale.ROOT);
            if (!value.equalsIgnoreCase(current)) {
                failMsg(
                        stmt.line,
                        label,
                        "the file switches runtime mode from " + current + " to " + value
                                + "; this tool proves a file in one mode (the first SET of"
                                + " 'execution.runtime-mode'): split the file");
                return;
            }
        }
        env.getConfig().set(key, value);
        ok(Kind.EXECUTED, stmt.line, label, "applied");
    }

    // ---------------------------------------------------------------- catalogs

    private void createCatalog(CreateCatalogOperation op, String label) {
        Map<String, String> props = new HashMap<>(op.getProperties());
        String type = props.getOrDefault("type", "");
        String name = op.getCatalogName();
        if (type.equals("fluss")) {
            Map<String, String> flussProps = rewriteWarehouses(name, props);
            String bootstrap = flussProps.get("bootstrap.servers");
            if (env.getCatalogManager().getCatalog(name).isPresent()) {
                if (op.isIgnoreIfExists()) {
                    ok(Kind.EXECUTED, stmt.line, label, "catalog exists; ignored");
                    return;
                }
            }
            Catalog standin =
                    fluss.createCatalog(
                            name, flussProps, env.getConfig(), Thread.currentThread().getContextClassLoader());
            env.registerCatalog(name, standin);
            flussCatalogs.put(name, bootstrap);
            notes.add(
                    "Fluss tables substituted: catalog '" + name + "' is Fluss's own FlinkCatalog (options"
                            + " validated by Fluss's factory) over an in-memory stand-in of the cluster at "
                            + bootstrap + "; table DDL goes through Fluss's client conversion and the"
                            + " coordinator's validation, and reads/writes are planned with Fluss's"
                            + " FlinkTableFactory, but no Fluss server was contacted");
            live(
                    stmt.line,
                    label,
                    "Fluss catalog opens a connection to " + bootstrap
                            + "; options validated and stand-in registered");
            return;
        }
        Map<String, String> rewritten = rewriteWarehouses(name, props);
        CreateCatalogOperation effective =
                rewritten.equals(props)
                        ? op
                        : new CreateCatalogOperation(name, rewritten, null, op.isIgnoreIfExists());
        env.executeInternal(effective);
        ok(Kind.EXECUTED, stmt.line, label, "executed" + (type.isEmpty() ? "" : " (type " + type + ")"));
    }

    /** Rewrites warehouse locations ('warehouse', '*.warehouse') into the run's temp dir. */
    private Map<String, String> rewriteWarehouses(String catalog, Map<String, String> props) {
        Map<String, String> out = new HashMap<>(props);
        for (Map.Entry<String, String> e : props.entrySet()) {
            String k = e.getKey();
            if (!(k.equals("warehouse") || k.endsWith(".warehouse"))) {
                continue;
            }
            String v = e.getValue();
            String nv = localWarehouse(tempRoot, v);
            out.put(k, nv);
            notes.add("catalog '" + catalog + "': '" + k + "' rewritten from '" + v + "' to '" + nv + "'");
        }
        return out;
    }

    /**
     * Maps a warehouse location of the lab (file:///warehouse/x, /warehouse/x,
     * s3://bucket/x, ...) to the same path under the run's temp dir.
     */
    static String localWarehouse(Path tempRoot, String v) {
        String path = v.replaceFirst("^[A-Za-z][A-Za-z0-9+.-]*://", "");
        if (v.startsWith("file:")) {
            path = v.replaceFirst("^file:(//)?", "");
        }
        path = path.replaceAll("^/+", "");
        return "file://" + tempRoot.resolve(path);
    }

    // ---------------------------------------------------------------- DDL

    private void ddl(Operation op, String label) {
        boolean flussDdl = touchesFluss(op);
        env.executeInternal(op);
        String what = "executed";
        if (op instanceof CreateTableOperation) {
            what += "; " + probe(((CreateTableOperation) op).getTableIdentifier());
        }
        if (flussDdl) {
            live(
                    stmt.line,
                    label,
                    "DDL on the Fluss server; applied to the stand-in (" + what + ")");
        } else {
            ok(Kind.EXECUTED, stmt.line, label, what);
        }
    }

    private boolean touchesFluss(Operation op) {
        String catalog = null;
        if (op instanceof CreateTableOperation) {
            CreateTableOperation c = (CreateTableOperation) op;
            if (c.isTemporary()) {
                return false;
            }
            catalog = c.getTableIdentifier().getCatalogName();
        } else if (op instanceof CreateDatabaseOperation) {
            catalog = ((CreateDatabaseOperation) op).getCatalogName();
        } else if (op instanceof DropOperation || op instanceof AlterOperation) {
            String s = op.asSummaryString();
            for (String c : flussCatalogs.keySet()) {
                if (s.contains(c)) {
                    return true;
                }
            }
            return false;
        }
        return catalog != null && flussCatalogs.containsKey(catalog);
    }

    /**
     * CREATE TABLE only stores the table; make the planner resolve its connector by
     * planning a read of it, or, if it cannot be read here (sink-only connector,
     * unbounded source in batch mode), a write to it.
     */
    private String probe(ObjectIdentifier id) {
        String name = id.asSerializableString();
        String readError;
        try {
            env.explainInternal(env.getParser().parse("SELECT * FROM " + name));
            return "connector resolved by planning a read";
        } catch (Throwable e) {
            readError = messages(e);
        }
        String insert = null;
        try {
            ResolvedSchema schema =
                    env.getCatalogManager().getTableOrError(id).getResolvedSchema();
            List<String> cols = new ArrayList<>();
            List<String> vals = new ArrayList<>();
            for (Column c : schema.getColumns()) {
                if (!c.isPhysical()) {
                    continue;
                }
                cols.add("`" + c.getName().replace("`", "``") + "`");
                vals.add(
                        "CAST(NULL AS "
                                + c.getDataType().getLogicalType().copy(true).asSerializableString()
                                + ")");
            }
            insert =
                    "INSERT INTO " + name + " (" + String.join(", ", cols) + ") SELECT "
                            + String.join(", ", vals);
            env.explainInternal(env.getParser().parse(insert));
            return "connector resolved by planning a write (a read is not possible here: "
                    + firstLine(readError) + ")";
        } catch (Throwable e) {
            String writeError = messages(e);
            String msg;
            if (writeError.contains("can only be used as a source")) {
                msg = "reading it: " + readError; // a source-only connector: the read is what counts
            } else if (readError.contains("can only be used as a sink")) {
                msg = "writing it: " + writeError;
            } else {
                msg =
                        "the table's connector could not be planned for reading nor for writing.\n"
                                + "reading it: " + readError + "\nwriting it: " + writeError;
            }
            throw new ProbeException(msg, e);
        }
    }

    private static final class ProbeException extends RuntimeException {
        ProbeException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    // ---------------------------------------------------------------- planning

    private void plan(List<Operation> ops, String label) {
        String plan =
                env.explainInternal(ops, ExplainFormat.TEXT, ExplainDetail.CHANGELOG_MODE);
        lastPlan = plan;
        StringBuilder what = new StringBuilder("planned");
        Set<String> reads = new LinkedHashSet<>();
        Set<String> writes = new LinkedHashSet<>();
        boolean substituted = false;
        String physical = section(plan, "== Optimized Physical Plan ==");
        String[] lines = physical.split("\n");
        for (int i = 0; i < lines.length; i++) {
            Matcher src = SOURCE_IN_PLAN.matcher(lines[i]);
            if (src.find()) {
                String t = src.group(1) + "." + src.group(2) + "." + src.group(3);
                if (flussCatalogs.containsKey(src.group(1))) {
                    t += " [Fluss stand-in]";
                    substituted = true;
                }
                reads.add(t);
            }
            Matcher snk = SINK_IN_PLAN.matcher(lines[i]);
            if (snk.find()) {
                String t = snk.group(1);
                String cat = t.split("\\.")[0];
                // the changelog the sink receives is its input's
                String input = i + 1 < lines.length ? lines[i + 1] : "";
                Matcher cm = CHANGELOG.matcher(input);
                String mode = cm.find() ? cm.group(1) : "?";
                if (flussCatalogs.containsKey(cat)) {
                    t += " [Fluss stand-in]";
                    substituted = true;
                }
                if (lines[i].contains("upsertMaterialize=[true]")) {
                    t += " upsertMaterialize";
                }
                writes.add(t + (mode.equals("?") ? "" : " <- changelog [" + mode + "]"));
            }
        }
        if (!reads.isEmpty()) {
            what.append("\n        reads:  ").append(String.join("\n                ", reads));
        }
        if (!writes.isEmpty()) {
            what.append("\n        writes: ").append(String.join("\n                ", writes));
        }
        ok(Kind.PLANNED, stmt.line, label, what.toString());
        if (substituted) {
            result.liveReasons.add(
                    "line " + stmt.line + ": planned against the Fluss stand-in; running it needs the live Fluss server");
        }
        if (opts.plans) {
            for (String l : plan.split("\n")) {
                out.println("        | " + l);
            }
        }
    }

    private static String section(String plan, String header) {
        int i = plan.indexOf(header);
        if (i < 0) {
            return plan;
        }
        int j = plan.indexOf("\n== ", i + header.length());
        return j < 0 ? plan.substring(i) : plan.substring(i, j);
    }

    // ---------------------------------------------------------------- reporting

    private void ok(Kind kind, int line, String label, String what) {
        switch (kind) {
            case EXECUTED:
                result.executed++;
                break;
            case PLANNED:
                result.planned++;
                break;
            default:
                break;
        }
        out.printf("   %-6s %-44s %s%n", "L" + line, clip(label, 44), what);
    }

    private void live(int line, String label, String reason) {
        result.live++;
        result.liveReasons.add("line " + line + ": " + reason);
        out.printf("   %-6s %-44s NEEDS LIVE SERVER: %s%n", "L" + line, clip(label, 44), reason);
    }

    private void fail(int line, String label, Throwable e) {
        String msg = e instanceof ProbeException ? e.getMessage() : messages(e);
        failMsg(line, label, msg);
        if (opts.stack) {
            StringWriter sw = new StringWriter();
            e.printStackTrace(new PrintWriter(sw));
            for (String l : sw.toString().split("\n")) {
                out.println("        ! " + l);
            }
        }
    }

    private void failMsg(int line, String label, String msg) {
        result.failed++;
        out.printf("   %-6s %-44s FAILED%n", "L" + line, clip(label, 44));
        out.printf("      %s:%d: %s%n", fileName, line, label);
        boolean parseError = msg.contains("SQL parse failed") || msg.startsWith("Encountered ");
        if (hadFailure && !parseError) {
            out.println("      (an earlier statement of this file failed; this may follow from it)");
        }
        hadFailure = true;
        String[] lines = msg.split("\n");
        int max = opts.fullErrors ? Integer.MAX_VALUE : 40;
        int shown = 0;
        int skipped = 0;
        int listRun = 0;
        for (String l : lines) {
            // long lists (supported options, expected tokens) are cut after a few entries
            boolean listItem = l.startsWith("    ") || l.matches("^[a-z0-9][a-z0-9._-]*$");
            listRun = listItem ? listRun + 1 : 0;
            if (!opts.fullErrors && (shown >= max || listRun > 12)) {
                skipped++;
                continue;
            }
            if (listRun == 0 && skipped > 0 && shown < max) {
                out.println("        … " + skipped + " more lines (--full-errors shows them)");
                skipped = 0;
            }
            out.println("        " + l);
            shown++;
        }
        if (skipped > 0) {
            out.println("        … " + skipped + " more lines (--full-errors shows them)");
        }
        for (String hint : didYouMean(msg)) {
            out.println("        hint: " + hint);
        }
        // Flink reports positions inside the statement; give the file's line too
        Matcher m = LINE_COL.matcher(msg);
        if (m.find() && stmt != null) {
            int l = Integer.parseInt(m.group(1));
            int c = Integer.parseInt(m.group(2));
            int fileLine = stmt.line + l - 1;
            int fileCol = l == 1 ? stmt.column + c - 1 : c;
            out.printf(
                    "        (Flink's \"line %d, column %d\" is %s:%d:%d)%n",
                    l, c, fileName, fileLine, fileCol);
        }
    }

    /** The engine's own messages, outermost first, each distinct one once. */
    static String messages(Throwable e) {
        List<String> out = new ArrayList<>();
        List<String> seen = new ArrayList<>();
        Set<Throwable> visited = new HashSet<>();
        for (Throwable t = e; t != null && visited.add(t); t = t.getCause()) {
            String raw = t.getMessage() == null ? "" : t.getMessage().trim();
            String m;
            if (raw.isEmpty()) {
                m = t.getClass().getName();
            } else if (t instanceof org.apache.flink.table.api.TableException
                    || t instanceof org.apache.flink.table.api.ValidationException
                    || t instanceof org.apache.flink.table.api.SqlParserException) {
                m = raw;
            } else {
                m = t.getClass().getSimpleName() + ": " + raw;
            }
            boolean dup = false;
            for (String s : seen) {
                if (!raw.isEmpty() && s.contains(raw)) {
                    dup = true;
                    break;
                }
            }
            if (dup) {
                continue;
            }
            seen.add(m);
            out.add((out.isEmpty() ? "" : "caused by: ") + m);
        }
        return String.join("\n", out);
    }

    private static final Pattern UNSUPPORTED_OPTIONS =
            Pattern.compile(
                    "Unsupported options:\\s*\\n\\s*\\n(.*?)\\n\\s*\\nSupported options:\\s*\\n\\s*\\n(.*?)(\\n\\s*\\n|$)",
                    Pattern.DOTALL);

    /** For Flink's "Unsupported options" message: the closest supported name of each. */
    static List<String> didYouMean(String msg) {
        List<String> hints = new ArrayList<>();
        Matcher m = UNSUPPORTED_OPTIONS.matcher(msg);
        while (m.find()) {
            List<String> supported = new ArrayList<>();
            for (String s : m.group(2).split("\n")) {
                if (!s.trim().isEmpty()) {
                    supported.add(s.trim());
                }
            }
            for (String u : m.group(1).split("\n")) {
                u = u.trim();
                if (u.isEmpty()) {
                    continue;
                }
                String best = null;
                int bestD = Integer.MAX_VALUE;
                for (String s : supported) {
                    int d = distance(u, s);
                    if (d < bestD) {
                        bestD = d;
                        best = s;
                    }
                }
                if (best != null && bestD <= Math.max(3, u.length() / 3)) {
                    hints.add("'" + u + "' is not an option of this connector; did you mean '" + best + "'?");
                }
            }
        }
        return hints;
    }

    private static int distance(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int c = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + c);
            }
            int[] tmp = prev;
            prev = cur;
            cur = tmp;
        }
        return prev[b.length()];
    }

    private static String firstLine(String s) {
        int i = s.indexOf('\n');
        return i < 0 ? s : s.substring(0, i);
    }

    /** A short label: the statement's head, whitespace collapsed. */
    static String label(String text) {
        String t = text.replaceAll("--[^\n]*", " ").replaceAll("\\s+", " ").trim();
        int paren = t.indexOf('(');
        String upper = t.toUpperCase(Locale.ROOT);
        if (upper.startsWith("CREATE") && paren > 0) {
            t = t.substring(0, paren).trim().replaceAll("(?i)\\s+WITH$", "");
        } else if (upper.startsWith("CREATE") && upper.contains(" AS ")) {
            t = t.substring(0, upper.indexOf(" AS ")).trim();
        } else if (upper.startsWith("SET ")) {
            t = t.replaceAll("\\s*=.*", "");
        } else if (upper.startsWith("INSERT ")) {
            int sel = upper.indexOf(" SELECT ");
            if (sel > 0) {
                t = t.substring(0, sel).trim();
            }
        } else if (upper.startsWith("EXECUTE STATEMENT SET")) {
            t = "EXECUTE STATEMENT SET";
        }
        return t;
    }

    private static String clip(String s, int n) {
        return s.length() <= n ? s : s.substring(0, n - 1) + "…";
    }
}
