package labgen.prove.flink;

import org.apache.calcite.avatica.util.Casing;
import org.apache.calcite.config.Lex;
import org.apache.calcite.sql.JoinConditionType;
import org.apache.calcite.sql.JoinType;
import org.apache.calcite.sql.SqlBasicCall;
import org.apache.calcite.sql.SqlCall;
import org.apache.calcite.sql.fun.SqlCase;
import org.apache.calcite.sql.SqlDialect;
import org.apache.calcite.sql.SqlIdentifier;
import org.apache.calcite.sql.SqlJoin;
import org.apache.calcite.sql.SqlKind;
import org.apache.calcite.sql.SqlLiteral;
import org.apache.calcite.sql.SqlNode;
import org.apache.calcite.sql.SqlNodeList;
import org.apache.calcite.sql.SqlOrderBy;
import org.apache.calcite.sql.SqlSelect;
import org.apache.calcite.sql.SqlWriter;
import org.apache.calcite.sql.dialect.CalciteSqlDialect;
import org.apache.calcite.sql.fun.SqlStdOperatorTable;
import org.apache.calcite.sql.parser.SqlParseException;
import org.apache.calcite.sql.parser.SqlParser;
import org.apache.calcite.sql.parser.SqlParserPos;
import org.apache.calcite.sql.util.SqlBasicVisitor;
import org.apache.flink.sql.parser.ddl.SqlCreateTable;
import org.apache.flink.sql.parser.ddl.SqlCreateView;
import org.apache.flink.sql.parser.ddl.SqlTableOption;
import org.apache.flink.sql.parser.ddl.constraint.SqlTableConstraint;
import org.apache.flink.sql.parser.dml.RichSqlInsert;
import org.apache.flink.sql.parser.dml.SqlExecute;
import org.apache.flink.sql.parser.dml.SqlStatementSet;
import org.apache.flink.sql.parser.impl.FlinkSqlParserImpl;
import org.apache.flink.sql.parser.validate.FlinkSqlConformance;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.api.config.ExecutionConfigOptions;
import org.apache.flink.table.catalog.UnresolvedIdentifier;
import org.apache.flink.table.types.logical.LogicalType;
import org.apache.flink.table.types.logical.LogicalTypeFamily;
import org.apache.flink.table.types.logical.LogicalTypeRoot;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * Mutants of a job's query: one wrong-in-one-way variant per operator and place, derived
 * from Flink's own parse tree (Calcite SqlNodes), unparsed to Flink SQL and proved through
 * the same {@link Prover} path as the original (catalogs, connectors, Fluss stand-in).
 * Negative controls for expectations: each aims at one claim. See README.md.
 */
final class Mutants {

    /** Flink's parser as its planner configures it (PlannerContext, default dialect). */
    static final SqlParser.Config PARSER =
            SqlParser.config()
                    .withParserFactory(FlinkSqlParserImpl.FACTORY)
                    .withConformance(FlinkSqlConformance.DEFAULT)
                    .withLex(Lex.JAVA)
                    .withIdentifierMaxLength(256);

    /**
     * Calcite's dialect with Flink's quoting (Lex.JAVA: backticks, case kept). Calcite's
     * dialects drop table hints on unparse; this one writes them back, since a job's
     * OPTIONS hints (e.g. scan.startup.mode) are part of what it reads.
     */
    static final SqlDialect DIALECT =
            new CalciteSqlDialect(
                    SqlDialect.EMPTY_CONTEXT
                            .withIdentifierQuoteString("`")
                            .withUnquotedCasing(Casing.UNCHANGED)
                            .withQuotedCasing(Casing.UNCHANGED)
                            .withConformance(FlinkSqlConformance.DEFAULT)) {
                @Override
                public void unparseTableScanHints(
                        SqlWriter writer, SqlNodeList hints, int leftPrec, int rightPrec) {
                    writer.print("/*+ ");
                    hints.unparse(writer, 0, 0);
                    writer.print("*/");
                }
            };

    static final class GeneratorException extends Exception {
        GeneratorException(String message) {
            super(message);
        }
    }

    static final class Mutant {
        String name;
        String operator;
        String description;
        String sql; // the full statement planned: INSERT (or statement set) with the query inlined
        String select; // the mutated job query alone
        String sinkDdl; // append_only_sink: the sink's CREATE TABLE that replaces the script's
        boolean equivalent;
        String equivalentReason;
        String skipped;
    }

    static final class Job {
        String job;
        String source;
        String select;
        final List<String> skippedKeys = new ArrayList<>();
        final List<String> notes = new ArrayList<>();
        final List<Mutant> mutants = new ArrayList<>();
    }

    private static final SqlParserPos POS = SqlParserPos.ZERO;

    private final Prover prover;
    private final ByteArrayOutputStream log; // the prover's output, shown on failures

    Mutants(Prover prover, ByteArrayOutputStream log) {
        this.prover = prover;
        this.log = log;
    }

    // ---------------------------------------------------------------- parsing / unparsing

    static SqlNode parse(String sql) throws SqlParseException {
        return SqlParser.create(sql, PARSER).parseStmt();
    }

    static SqlNode parseExpr(String sql) {
        try {
            return SqlParser.create(sql, PARSER).parseExpression();
        } catch (SqlParseException e) {
            throw new IllegalStateException("generated expression does not parse: " + sql, e);
        }
    }

    static String unparse(SqlNode n) {
        return n.toSqlString(
                        c ->
                                c.withDialect(DIALECT)
                                        .withClauseStartsLine(true)
                                        .withSelectListItemsOnSeparateLines(true)
                                        .withIndentation(2))
                .getSql();
    }

    /** Unparses and checks that Flink's parser reads the text back to the same tree. */
    static String unparseChecked(SqlNode n) throws GeneratorException {
        String text = unparse(n);
        try {
            String again = unparse(parse(text));
            if (!again.equals(text)) {
                throw new GeneratorException(
                        "unparsed SQL does not re-parse to the same tree:\n" + text + "\n-- re-parsed:\n" + again);
            }
        } catch (SqlParseException e) {
            throw new GeneratorException("unparsed SQL does not re-parse: " + e.getMessage() + "\n" + text);
        }
        return text;
    }

    private static String oneLine(SqlNode n) {
        return unparse(n).replace("`", "").replaceAll("\\s+", " ").trim();
    }

    // ---------------------------------------------------------------- the job in a script

    /** What the script's DML reads and writes. */
    private static final class Script {
        String pipelineName;
        SqlNode dml; // RichSqlInsert or SqlExecute(SqlStatementSet)
        String dmlText;
        String viewName; // the temporary view the INSERTs read, or null (query inline)
        String query; // the job query, unparsed
        final Map<String, String> createTableText = new LinkedHashMap<>(); // name -> DDL text
        final Map<String, SqlCreateTable> createTable = new LinkedHashMap<>();
    }

    private static List<RichSqlInsert> inserts(SqlNode dml) {
        if (dml instanceof RichSqlInsert) {
            return List.of((RichSqlInsert) dml);
        }
        SqlNode inner = dml instanceof SqlExecute ? ((SqlExecute) dml).getStatement() : dml;
        if (inner instanceof SqlStatementSet) {
            return ((SqlStatementSet) inner).getInserts();
        }
        if (inner instanceof RichSqlInsert) {
            return List.of((RichSqlInsert) inner);
        }
        return List.of();
    }

    private static String lastName(SqlIdentifier id) {
        return id.names.get(id.names.size() - 1);
    }

    /** The view an INSERT reads with a plain SELECT cols FROM view, or null. */
    private static String viewRead(RichSqlInsert ins) {
        SqlNode src = ins.getSource();
        if (src instanceof SqlSelect && ((SqlSelect) src).getFrom() instanceof SqlIdentifier) {
            SqlSelect s = (SqlSelect) src;
            if (s.getWhere() == null && s.getGroup() == null) {
                return lastName((SqlIdentifier) s.getFrom());
            }
        }
        return null;
    }

    private static Script readScript(Path file) throws IOException, GeneratorException {
        String text = new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
        List<SqlSplitter.Statement> stmts;
        try {
            stmts = SqlSplitter.split(text);
        } catch (SqlSplitter.SplitException e) {
            throw new GeneratorException(file + ":" + e.line + ": cannot split: " + e.getMessage());
        }
        Script sc = new Script();
        Map<String, SqlCreateView> views = new LinkedHashMap<>();
        for (SqlSplitter.Statement st : stmts) {
            SqlNode n;
            try {
                n = parse(st.text);
            } catch (SqlParseException e) {
                continue; // the prover has judged it already
            }
            if (n instanceof SqlCreateView) {
                views.put(lastName(((SqlCreateView) n).getViewName()), (SqlCreateView) n);
            } else if (n instanceof SqlCreateTable) {
                String name = lastName(((SqlCreateTable) n).getTableName());
                sc.createTable.put(name, (SqlCreateTable) n);
                sc.createTableText.put(name, st.text);
            } else if (!inserts(n).isEmpty()) {
                if (sc.dml != null) {
                    throw new GeneratorException(
                            file + ":" + st.line + ": a second INSERT or statement set; a job file has one");
                }
                sc.dml = n;
                sc.dmlText = st.text;
            } else if (n.getClass().getSimpleName().equals("SqlSet")) {
                String u = n.toString().replace("`", "").replace("'", "");
                if (u.matches("(?s)SET\\s+pipeline\\.name\\s*=.*")) {
                    sc.pipelineName = u.replaceFirst("(?s)SET\\s+pipeline\\.name\\s*=\\s*", "").trim();
                }
            }
        }
        if (sc.dml == null) {
            return sc;
        }
        Set<String> read = new LinkedHashSet<>();
        for (RichSqlInsert ins : inserts(sc.dml)) {
            read.add(String.valueOf(viewRead(ins)));
        }
        if (read.size() == 1 && views.containsKey(read.iterator().next())) {
            sc.viewName = read.iterator().next();
            sc.query = unparseChecked(views.get(sc.viewName).getQuery());
        } else if (inserts(sc.dml).size() == 1) {
            sc.query = unparseChecked(inserts(sc.dml).get(0).getSource());
        } else {
            throw new GeneratorException(
                    file + ": the statement set's INSERTs do not all read one view; no single job query");
        }
        return sc;
    }

    /** The script's DML with the job query replaced by {@code select}, unparsed. */
    private static String statementWith(Script sc, String select) throws GeneratorException {
        SqlNode dml;
        try {
            dml = parse(sc.dmlText);
        } catch (SqlParseException e) {
            throw new GeneratorException("the script's INSERT does not parse: " + e.getMessage());
        }
        for (RichSqlInsert ins : inserts(dml)) {
            SqlNode q;
            try {
                q = parse(select);
            } catch (SqlParseException e) {
                throw new GeneratorException("mutated query does not parse: " + e.getMessage());
            }
            if (sc.viewName != null) {
                SqlSelect s = (SqlSelect) ins.getSource();
                s.setFrom(
                        SqlStdOperatorTable.AS.createCall(
                                POS, q, new SqlIdentifier(sc.viewName, POS)));
            } else {
                ins.setOperand(2, q);
            }
        }
        if (dml instanceof RichSqlInsert) {
            return unparseChecked(dml);
        }
        // a statement set: each INSERT unparsed alone (Calcite's own unparse of the set
        // indents every INSERT deeper than the last), then checked as a whole
        StringBuilder b = new StringBuilder("EXECUTE STATEMENT SET\nBEGIN\n");
        for (RichSqlInsert ins : inserts(dml)) {
            b.append(unparseChecked(ins)).append(";\n");
        }
        String text = b.append("END").toString();
        try {
            if (!inserts(parse(text)).stream().map(Mutants::unparse).collect(java.util.stream.Collectors.toList())
                    .equals(inserts(dml).stream().map(Mutants::unparse).collect(java.util.stream.Collectors.toList()))) {
                throw new GeneratorException("statement set does not re-parse to the same INSERTs:\n" + text);
            }
        } catch (SqlParseException e) {
            throw new GeneratorException("statement set does not re-parse: " + e.getMessage() + "\n" + text);
        }
        return text;
    }

    // ---------------------------------------------------------------- generation

    /** Mutants of the file's job, or null if the file has no INSERT (a setup file). */
    Job generate(Path file) throws IOException, GeneratorException {
        log.reset();
        Prover.FileResult r = prover.prove(file);
        if (r.failed > 0) {
            throw new GeneratorException("the original does not prove:\n" + logText());
        }
        Script sc = readScript(file);
        if (sc.dml == null) {
            return null;
        }
        Job job = new Job();
        job.source = file.toString();
        String stem = file.getFileName().toString().replaceFirst("\\.sql$", "");
        job.job = sc.pipelineName != null ? sc.pipelineName : stem;
        job.select = sc.query;

        // the baseline: the original query inlined the way every mutant is
        String identity = statementWith(sc, sc.query);
        String plan0 = planOrFail(identity, "original (query inlined)");

        ResolvedSchema schema = prover.env().sqlQuery(sc.query).getResolvedSchema();
        List<String> outCols = schema.getColumnNames();

        // sink primary keys, as columns of the job query (through the INSERT's select list)
        List<String> keyCols = new ArrayList<>();
        List<RichSqlInsert> ins = inserts(parseOrFail(sc.dmlText));
        Set<String> notNullCols = new LinkedHashSet<>(); // query columns a sink declares NOT NULL
        for (RichSqlInsert in : ins) {
            Map<String, String> feeds = sinkToQueryCols(in, sc, outCols);
            ResolvedSchema sink = sinkSchema(in);
            if (sink.getPrimaryKey().isPresent()) {
                for (String k : sink.getPrimaryKey().get().getColumns()) {
                    String q = feeds.get(k);
                    if (q != null && !keyCols.contains(q)) {
                        keyCols.add(q);
                    }
                }
            }
            for (Column c : sink.getColumns()) {
                if (!c.getDataType().getLogicalType().isNullable() && feeds.containsKey(c.getName())) {
                    notNullCols.add(feeds.get(c.getName()));
                }
            }
        }
        String enforcer =
                prover.env()
                        .getConfig()
                        .get(ExecutionConfigOptions.TABLE_EXEC_SINK_NOT_NULL_ENFORCER)
                        .toString();

        SqlNode q0 = parseOrFail(sc.query);
        SqlSelect top = topSelect(q0);

        // join keys: projected plain columns that an equality of some join condition compares
        Set<String> joinKeyCols = new LinkedHashSet<>();
        if (top != null) {
            Set<String> eqCols = new LinkedHashSet<>();
            for (SqlJoin j : joins(q0)) {
                if (j.getCondition() == null) {
                    continue;
                }
                for (SqlNode c : conjuncts(j.getCondition())) {
                    if (c.getKind() == SqlKind.EQUALS) {
                        for (SqlNode o : ((SqlCall) c).getOperandList()) {
                            if (o instanceof SqlIdentifier) {
                                eqCols.add(o.toString());
                            }
                        }
                    }
                }
            }
            List<SqlNode> items = top.getSelectList().getList();
            for (int i = 0; i < items.size() && i < outCols.size(); i++) {
                SqlNode e = stripAs(items.get(i));
                if (e instanceof SqlIdentifier && eqCols.contains(e.toString())) {
                    joinKeyCols.add(outCols.get(i));
                }
            }
        }

        List<Candidate> cands = new ArrayList<>();
        innerJoin(q0, cands, job);
        dropConjunct(q0, cands, job);
        columns(top, schema, keyCols, joinKeyCols, notNullCols, enforcer, cands, job);
        loseKeys(top, schema, keyCols, joinKeyCols, cands, job);
        cands.add(
                new Candidate(
                        "duplicate_output",
                        "duplicate_output",
                        "the query's rows emitted twice (UNION ALL of the query with itself): duplicates",
                        q -> SqlStdOperatorTable.UNION_ALL.createCall(POS, q, parseOrThrow(sc.query))));

        for (Candidate c : cands) {
            Mutant m = new Mutant();
            m.name = c.name;
            m.operator = c.operator;
            m.description = c.description;
            if (c.skipped != null) {
                m.skipped = c.skipped;
                job.mutants.add(m);
                continue;
            }
            SqlNode mutated = c.rewrite.apply(parseOrFail(sc.query));
            m.select = unparseChecked(mutated);
            if (m.select.equals(sc.query)) {
                throw new GeneratorException(m.name + ": the rewrite changed nothing");
            }
            m.sql = statementWith(sc, m.select);
            String plan = planOrFail(m.sql, m.name);
            compare(m, plan0, plan);
            job.mutants.add(m);
        }
        appendOnlySinks(sc, ins, identity, plan0, job);
        return job;
    }

    private static final class Candidate {
        final String name;
        final String operator;
        final String description;
        final UnaryOperator<SqlNode> rewrite;
        String skipped;

        Candidate(String name, String operator, String description, UnaryOperator<SqlNode> rewrite) {
            this.name = name;
            this.operator = operator;
            this.description = description;
            this.rewrite = rewrite;
        }

        static Candidate skip(String name, String operator, String description, String why) {
            Candidate c = new Candidate(name, operator, description, null);
            c.skipped = why;
            return c;
        }
    }

    // ---------------------------------------------------------------- operators

    /** inner_join: each LEFT/RIGHT/FULL OUTER JOIN becomes an INNER JOIN. */
    private static void innerJoin(SqlNode q0, List<Candidate> out, Job job) {
        List<SqlJoin> js = joins(q0);
        int n = 0;
        for (int i = 0; i < js.size(); i++) {
            SqlJoin j = js.get(i);
            JoinType t = j.getJoinType();
            if (t != JoinType.LEFT && t != JoinType.RIGHT && t != JoinType.FULL) {
                continue;
            }
            n++;
            final int at = i;
            String kept = t == JoinType.LEFT ? side(j.getLeft()) : side(j.getRight());
            String missing = t == JoinType.LEFT ? side(j.getRight()) : side(j.getLeft());
            String what =
                    t == JoinType.FULL
                            ? "rows of either side without a match are dropped"
                            : "rows of " + kept + " without a match in " + missing + " are dropped";
            out.add(
                    new Candidate(
                            "inner_join:" + side(j.getRight()),
                            "inner_join",
                            t + " JOIN " + side(j.getRight()) + " → INNER JOIN: " + what,
                            q -> {
                                SqlJoin m = joins(q).get(at);
                                m.setOperand(2, JoinType.INNER.symbol(POS));
                                return q;
                            }));
        }
        if (n == 0) {
            job.notes.add("inner_join: the query has no outer join");
        }
    }

    /** drop_conjunct: a join condition of two or more AND-ed conjuncts loses one. */
    private static void dropConjunct(SqlNode q0, List<Candidate> out, Job job) {
        List<SqlJoin> js = joins(q0);
        int n = 0;
        for (int i = 0; i < js.size(); i++) {
            SqlJoin j = js.get(i);
            if (j.getConditionType() != JoinConditionType.ON || j.getCondition() == null) {
                continue;
            }
            List<SqlNode> cs = conjuncts(j.getCondition());
            if (cs.size() < 2) {
                job.notes.add(
                        "drop_conjunct: the condition of the join with " + side(j.getRight())
                                + " has one conjunct (" + oneLine(j.getCondition()) + ")");
                continue;
            }
            for (int k = 0; k < cs.size(); k++) {
                n++;
                final int at = i;
                final int drop = k;
                String c = oneLine(cs.get(k));
                out.add(
                        new Candidate(
                                "drop_conjunct:" + c,
                                "drop_conjunct",
                                "the join with " + side(j.getRight()) + " loses the conjunct " + c
                                        + ": rows are matched that the condition kept apart",
                                q -> {
                                    SqlJoin m = joins(q).get(at);
                                    List<SqlNode> rest = new ArrayList<>(conjuncts(m.getCondition()));
                                    rest.remove(drop);
                                    SqlNode cond = rest.get(0);
                                    for (int x = 1; x < rest.size(); x++) {
                                        cond = SqlStdOperatorTable.AND.createCall(POS, cond, rest.get(x));
                                    }
                                    m.setOperand(5, cond);
                                    return q;
                                }));
            }
        }
        if (js.isEmpty()) {
            job.notes.add("drop_conjunct: the query has no join");
        }
    }

    /** null_column / constant_column: one projected column of the top SELECT. */
    private static void columns(
            SqlSelect top,
            ResolvedSchema schema,
            List<String> keyCols,
            Set<String> joinKeyCols,
            Set<String> notNullCols,
            String enforcer,
            List<Candidate> out,
            Job job) {
        if (top == null) {
            job.notes.add("null_column, constant_column: the query is not a plain SELECT");
            return;
        }
        List<SqlNode> items = top.getSelectList().getList();
        List<Column> cols = schema.getColumns();
        if (items.size() != cols.size()) {
            job.notes.add("null_column, constant_column: the select list has * or does not match the query's columns");
            return;
        }
        List<Candidate> consts = new ArrayList<>();
        for (int i = 0; i < items.size(); i++) {
            String col = cols.get(i).getName();
            LogicalType type = cols.get(i).getDataType().getLogicalType();
            String typeSql = type.copy(true).asSerializableString();
            if (keyCols.contains(col) || joinKeyCols.contains(col)) {
                String why =
                        keyCols.contains(col)
                                ? "a primary-key column of the sink: a NULL or constant key fails or merges every row"
                                : "a join-key column";
                job.skippedKeys.add(col + " (" + why + ")");
                continue;
            }
            final int at = i;
            out.add(
                    new Candidate(
                            "null_column:" + col,
                            "null_column",
                            col + " is always NULL (CAST(NULL AS " + typeSql + ")): a missing value"
                                    + (notNullCols.contains(col)
                                            ? " (a sink declares it NOT NULL: with table.exec.sink.not-null-enforcer="
                                                    + enforcer
                                                    + (enforcer.equals("ERROR")
                                                            ? " the job fails at the first row"
                                                            : " every row is dropped")
                                                    + ")"
                                            : ""),
                            q -> {
                                replaceItem(topSelect(q), at, "CAST(NULL AS " + typeSql + ")", col);
                                return q;
                            }));
            String lit = constantFor(stripAs(items.get(i)), type);
            if (lit == null) {
                consts.add(
                        Candidate.skip(
                                "constant_column:" + col,
                                "constant_column",
                                col + " is always one constant",
                                "no constant for type " + typeSql));
                continue;
            }
            String expr = "CAST(" + lit + " AS " + typeSql + ")";
            consts.add(
                    new Candidate(
                            "constant_column:" + col,
                            "constant_column",
                            col + " is always " + lit + ": a value that never updates",
                            q -> {
                                replaceItem(topSelect(q), at, expr, col);
                                return q;
                            }));
        }
        out.addAll(consts);
    }

    /**
     * The constant a column is pinned to: the fallback literal of a COALESCE, or the first
     * literal result of a CASE ("a status that never updates"); else a fixed value of its type.
     */
    private static String constantFor(SqlNode e, LogicalType type) {
        if (e instanceof SqlBasicCall
                && ((SqlBasicCall) e).getOperator().getName().equalsIgnoreCase("COALESCE")) {
            List<SqlNode> ops = ((SqlBasicCall) e).getOperandList();
            SqlNode last = ops.get(ops.size() - 1);
            if (last instanceof SqlLiteral) {
                return unparse(last);
            }
        }
        if (e instanceof SqlCase) {
            SqlCase c = (SqlCase) e;
            for (SqlNode t : c.getThenOperands()) {
                if (t instanceof SqlLiteral && !SqlUtilNull.isNull(t)) {
                    return unparse(t);
                }
            }
            if (c.getElseOperand() instanceof SqlLiteral && !SqlUtilNull.isNull(c.getElseOperand())) {
                return unparse(c.getElseOperand());
            }
        }
        LogicalTypeRoot root = type.getTypeRoot();
        if (type.is(LogicalTypeFamily.CHARACTER_STRING)) {
            return "'constant'";
        }
        if (type.is(LogicalTypeFamily.NUMERIC)) {
            return "0";
        }
        switch (root) {
            case BOOLEAN:
                return "FALSE";
            case DATE:
                return "DATE '1970-01-01'";
            case TIME_WITHOUT_TIME_ZONE:
                return "TIME '00:00:00'";
            case TIMESTAMP_WITHOUT_TIME_ZONE:
                return "TIMESTAMP '1970-01-01 00:00:00'";
            case TIMESTAMP_WITH_LOCAL_TIME_ZONE:
                return "TO_TIMESTAMP_LTZ(0, 3)";
            default:
                return null;
        }
    }

    /** Calcite's NULL literal test, kept apart for readability. */
    private static final class SqlUtilNull {
        static boolean isNull(SqlNode n) {
            return n instanceof SqlLiteral && ((SqlLiteral) n).getValue() == null;
        }
    }

    private static void replaceItem(SqlSelect s, int at, String expr, String alias) {
        SqlNodeList list = s.getSelectList();
        list.set(
                at,
                SqlStdOperatorTable.AS.createCall(POS, parseExpr(expr), new SqlIdentifier(alias, POS)));
    }

    /** lose_keys: the first sink key, at its source column, loses one value in ten. */
    private static void loseKeys(
            SqlSelect top,
            ResolvedSchema schema,
            List<String> keyCols,
            Set<String> joinKeyCols,
            List<Candidate> out,
            Job job) {
        String name = "lose_keys";
        String desc = "one key in ten filtered out at the source: silent loss";
        String key;
        String via = "";
        if (!keyCols.isEmpty()) {
            key = keyCols.get(0);
        } else if (!joinKeyCols.isEmpty()) {
            // an append-only sink has no key; the join's key is what identifies a row then
            key = joinKeyCols.iterator().next();
            via = " (the sink has no primary key; " + key + " is the join's key)";
        } else {
            out.add(Candidate.skip(name, name, desc, "the sink has no primary key and the query no join key"));
            return;
        }
        int at = schema.getColumnNames().indexOf(key);
        SqlNode e = top == null ? null : stripAs(top.getSelectList().get(at));
        if (!(e instanceof SqlIdentifier)) {
            out.add(
                    Candidate.skip(
                            name, name, desc,
                            "the key " + key + " is not a plain source column in the top SELECT"));
            return;
        }
        LogicalType t = schema.getColumns().get(at).getDataType().getLogicalType();
        String src = unparse(e);
        String cond;
        if (t.is(LogicalTypeFamily.INTEGER_NUMERIC)) {
            cond = "MOD(" + src + ", 10) <> 3";
        } else if (t.is(LogicalTypeFamily.CHARACTER_STRING)) {
            // HASH_CODE: Flink's own hash of a string; ABS so that MOD stays in 0..9
            cond = "MOD(ABS(HASH_CODE(" + src + ")), 10) <> 3";
        } else {
            out.add(
                    Candidate.skip(
                            name, name, desc,
                            "no one-in-ten filter for the key " + key + " of type " + t.asSummaryString()));
            return;
        }
        out.add(
                new Candidate(
                        name,
                        name,
                        "WHERE " + cond.replace("`", "") + " added: the rows of one " + key
                                + " in ten are filtered out at the source, a silent loss" + via,
                        q -> {
                            SqlSelect s = topSelect(q);
                            SqlNode c = parseExpr(cond);
                            s.setWhere(
                                    s.getWhere() == null
                                            ? c
                                            : SqlStdOperatorTable.AND.createCall(POS, s.getWhere(), c));
                            return q;
                        }));
    }

    /**
     * append_only_sink: an upsert sink (a temporary table of this script with a primary key)
     * re-declared without its key: upsert-kafka becomes kafka (same key and value formats,
     * the key columns as key.fields), any other connector keeps its options. If Flink does not
     * plan that (an append-only connector fed an update stream), it is skipped with the
     * planner's reason: no honest SQL form of it exists for that job.
     */
    private void appendOnlySinks(
            Script sc, List<RichSqlInsert> ins, String identity, String plan0, Job job)
            throws GeneratorException {
        for (RichSqlInsert in : ins) {
            SqlIdentifier target = (SqlIdentifier) in.getTargetTable();
            String t = lastName(target);
            Mutant m = new Mutant();
            m.operator = "append_only_sink";
            m.name = "append_only_sink:" + String.join(".", target.names);
            SqlCreateTable ddl = target.names.size() == 1 ? sc.createTable.get(t) : null;
            if (ddl == null || !ddl.isTemporary()) {
                m.description = "sink " + String.join(".", target.names) + " written append-only";
                m.skipped =
                        "a catalog table declared outside this script: re-declaring it would change"
                                + " the lake's own DDL, not this job";
                job.mutants.add(m);
                continue;
            }
            List<SqlTableConstraint> pks = new ArrayList<>();
            List<SqlTableConstraint> others = new ArrayList<>();
            for (SqlTableConstraint c : ddl.getTableConstraints()) {
                (c.isPrimaryKey() ? pks : others).add(c);
            }
            if (pks.isEmpty()) {
                job.notes.add("append_only_sink: " + t + " has no table PRIMARY KEY: already append-only");
                continue;
            }
            String[] keys = pks.get(0).getColumnNames();
            SqlNodeList props = new SqlNodeList(POS);
            String connector = "";
            for (SqlNode p : ddl.getPropertyList()) {
                SqlTableOption o = (SqlTableOption) p;
                if (o.getKeyString().equals("connector")) {
                    connector = o.getValueString();
                }
            }
            boolean upsertKafka = connector.equals("upsert-kafka");
            for (SqlNode p : ddl.getPropertyList()) {
                SqlTableOption o = (SqlTableOption) p;
                String k = o.getKeyString();
                String v = o.getValueString();
                if (upsertKafka && k.equals("connector")) {
                    v = "kafka";
                } else if (upsertKafka && k.startsWith("sink.buffer-flush.")) {
                    continue; // upsert-kafka's own buffering; kafka has no such option
                }
                props.add(option(k, v));
            }
            if (upsertKafka) {
                props.add(option("key.fields", String.join(";", keys)));
            }
            SqlCreateTable mutated =
                    new SqlCreateTable(
                            POS,
                            ddl.getTableName(),
                            ddl.getColumnList(),
                            others,
                            props,
                            ddl.getDistribution(),
                            ddl.getPartitionKeyList(),
                            ddl.getWatermark().orElse(null),
                            ddl.getComment().orElse(null),
                            true,
                            false);
            m.sinkDdl = unparseChecked(mutated);
            m.description =
                    "sink " + t + " re-declared without PRIMARY KEY"
                            + (upsertKafka ? " (upsert-kafka → kafka, key.fields " + String.join(";", keys) + ")" : "")
                            + ": every version is a separate record, versions are not merged";
            m.select = sc.query;
            m.sql = identity;
            String drop = "DROP TEMPORARY TABLE `" + t.replace("`", "``") + "`";
            proveOrFail(drop, m.name + ": drop the sink");
            proveOrFail(m.sinkDdl, m.name + ": the re-declared sink");
            log.reset();
            Prover.FileResult r = prover.proveMore(identity, m.name);
            String planned = prover.lastPlan();
            String why = logText();
            proveOrFail(drop, m.name + ": drop the re-declared sink");
            proveOrFail(sc.createTableText.get(t), m.name + ": restore the sink");
            if (r.failed > 0 || planned == null) {
                m.skipped = "Flink does not plan it: " + plannerMessage(why);
                m.sql = null;
                m.select = null;
                m.sinkDdl = null;
            } else {
                compare(m, plan0, planned);
                if (m.equivalent && sinkInputInsertOnly(planned, t)) {
                    // EXPLAIN does not show connectors; say why the writes are the same too
                    m.equivalentReason +=
                            "; the sink receives an insert-only changelog, so each row is written once"
                                    + " either way";
                }
            }
            job.mutants.add(m);
        }
    }

    /** Whether the optimized plan feeds the sink named {@code table} an insert-only changelog. */
    private static boolean sinkInputInsertOnly(String plan, String table) {
        String[] lines = optimized(plan).split("\n");
        for (int i = 0; i + 1 < lines.length; i++) {
            if (lines[i].contains("Sink(table=[") && lines[i].contains("." + table + "]")) {
                return lines[i + 1].contains("changelogMode=[I]");
            }
        }
        return false;
    }

    private static SqlTableOption option(String k, String v) {
        return new SqlTableOption(
                SqlLiteral.createCharString(k, POS), SqlLiteral.createCharString(v, POS), POS);
    }

    /** The planner's own reason in a prover failure report: its first message line. */
    private static String plannerMessage(String log) {
        for (String l : log.split("\n")) {
            String s = l.trim();
            if (s.isEmpty() || s.startsWith("L1 ") || s.endsWith("FAILED") || s.contains(": EXECUTE STATEMENT SET")
                    || s.contains(": INSERT INTO")) {
                continue;
            }
            if (l.startsWith("        ")) {
                return s;
            }
        }
        return log.trim();
    }

    // ---------------------------------------------------------------- helpers

    private void compare(Mutant m, String plan0, String plan) {
        String a = optimized(plan0);
        String b = optimized(plan);
        if (a.equals(b)) {
            m.equivalent = true;
            m.equivalentReason = "Flink's optimized plan (EXPLAIN) is identical to the original's";
        }
    }

    /** The optimized sections of an EXPLAIN (the AST differs by construction). */
    private static String optimized(String plan) {
        int i = plan.indexOf("== Optimized Physical Plan ==");
        return i < 0 ? plan : plan.substring(i);
    }

    private String planOrFail(String sql, String what) throws GeneratorException {
        log.reset();
        Prover.FileResult r = prover.proveMore(sql, what);
        if (r.failed > 0 || prover.lastPlan() == null) {
            throw new GeneratorException(what + ": does not plan:\n" + logText() + "\n-- the statement:\n" + sql);
        }
        return prover.lastPlan();
    }

    private void proveOrFail(String sql, String what) throws GeneratorException {
        log.reset();
        Prover.FileResult r = prover.proveMore(sql, what);
        if (r.failed > 0) {
            throw new GeneratorException(what + ": fails:\n" + logText() + "\n-- the statement:\n" + sql);
        }
    }

    private String logText() {
        return new String(log.toByteArray(), StandardCharsets.UTF_8);
    }

    private static SqlNode parseOrFail(String sql) throws GeneratorException {
        try {
            return parse(sql);
        } catch (SqlParseException e) {
            throw new GeneratorException("does not parse: " + e.getMessage() + "\n" + sql);
        }
    }

    private static SqlNode parseOrThrow(String sql) {
        try {
            return parse(sql);
        } catch (SqlParseException e) {
            throw new IllegalStateException(e);
        }
    }

    private static SqlSelect topSelect(SqlNode q) {
        if (q instanceof SqlOrderBy) {
            q = ((SqlOrderBy) q).query;
        }
        return q instanceof SqlSelect ? (SqlSelect) q : null;
    }

    private static SqlNode stripAs(SqlNode n) {
        return n.getKind() == SqlKind.AS ? ((SqlCall) n).operand(0) : n;
    }

    /** Every join of the tree, in pre-order (a stable numbering on a fresh parse of the same text). */
    private static List<SqlJoin> joins(SqlNode root) {
        List<SqlJoin> out = new ArrayList<>();
        root.accept(
                new SqlBasicVisitor<Void>() {
                    @Override
                    public Void visit(SqlCall call) {
                        if (call instanceof SqlJoin) {
                            out.add((SqlJoin) call);
                        }
                        return super.visit(call);
                    }
                });
        return out;
    }

    private static List<SqlNode> conjuncts(SqlNode cond) {
        List<SqlNode> out = new ArrayList<>();
        if (cond.getKind() == SqlKind.AND) {
            for (SqlNode o : ((SqlCall) cond).getOperandList()) {
                out.addAll(conjuncts(o));
            }
        } else {
            out.add(cond);
        }
        return out;
    }

    /** A join input, named by its table (alias dropped); a subquery is "(subquery)". */
    private static String side(SqlNode n) {
        if (n.getKind() == SqlKind.AS) {
            n = ((SqlCall) n).operand(0);
        }
        if (n instanceof SqlIdentifier) {
            return String.join(".", ((SqlIdentifier) n).names);
        }
        if (n.getKind() == SqlKind.TABLE_REF) { // a table with hints
            return side(((SqlCall) n).operand(0));
        }
        if (n instanceof SqlJoin) {
            return side(((SqlJoin) n).getRight());
        }
        return "(subquery)";
    }

    /** The sink's columns (physical, in the INSERT's order) and the job query's columns that feed them. */
    private Map<String, String> sinkToQueryCols(RichSqlInsert in, Script sc, List<String> outCols) {
        ResolvedSchema sink = sinkSchema(in);
        List<String> sinkCols = new ArrayList<>();
        if (in.getTargetColumnList() != null) {
            for (SqlNode c : in.getTargetColumnList()) {
                sinkCols.add(lastName((SqlIdentifier) c));
            }
        } else {
            for (Column c : sink.getColumns()) {
                if (c.isPhysical()) {
                    sinkCols.add(c.getName());
                }
            }
        }
        List<SqlNode> items =
                sc.viewName != null ? ((SqlSelect) in.getSource()).getSelectList().getList() : null;
        Map<String, String> out = new LinkedHashMap<>();
        for (int pos = 0; pos < sinkCols.size(); pos++) {
            if (items == null) {
                if (pos < outCols.size()) {
                    out.put(sinkCols.get(pos), outCols.get(pos));
                }
                continue;
            }
            SqlNode e = pos < items.size() ? stripAs(items.get(pos)) : null;
            if (e instanceof SqlIdentifier && outCols.contains(lastName((SqlIdentifier) e))) {
                out.put(sinkCols.get(pos), lastName((SqlIdentifier) e));
            }
        }
        return out;
    }

    private ResolvedSchema sinkSchema(RichSqlInsert in) {
        SqlIdentifier target = (SqlIdentifier) in.getTargetTable();
        ObjectIdentifier id =
                prover.env().getCatalogManager().qualifyIdentifier(UnresolvedIdentifier.of(target.names));
        return prover.env().getCatalogManager().getTableOrError(id).getResolvedSchema();
    }

    // ---------------------------------------------------------------- JSON

    static String json(Job j) {
        StringBuilder b = new StringBuilder();
        b.append("{\n");
        field(b, 1, "job", j.job, true);
        field(b, 1, "source", j.source, true);
        field(b, 1, "select", j.select, true);
        b.append("  \"skipped_columns\": ").append(strings(j.skippedKeys)).append(",\n");
        b.append("  \"notes\": ").append(strings(j.notes)).append(",\n");
        b.append("  \"mutants\": [");
        for (int i = 0; i < j.mutants.size(); i++) {
            Mutant m = j.mutants.get(i);
            b.append(i == 0 ? "\n" : ",\n").append("    {\n");
            List<String[]> fs = new ArrayList<>();
            fs.add(new String[] {"name", m.name});
            fs.add(new String[] {"operator", m.operator});
            fs.add(new String[] {"description", m.description});
            if (m.skipped != null) {
                fs.add(new String[] {"skipped", m.skipped});
            } else {
                fs.add(new String[] {"equivalent", null});
                if (m.equivalentReason != null) {
                    fs.add(new String[] {"equivalent_reason", m.equivalentReason});
                }
                fs.add(new String[] {"select", m.select});
                if (m.sinkDdl != null) {
                    fs.add(new String[] {"sink_ddl", m.sinkDdl});
                }
                fs.add(new String[] {"sql", m.sql});
            }
            for (int k = 0; k < fs.size(); k++) {
                boolean more = k < fs.size() - 1;
                if (fs.get(k)[0].equals("equivalent")) {
                    b.append("      \"equivalent\": ").append(m.equivalent).append(more ? ",\n" : "\n");
                } else {
                    field(b, 3, fs.get(k)[0], fs.get(k)[1], more);
                }
            }
            b.append("    }");
        }
        b.append(j.mutants.isEmpty() ? "]\n" : "\n  ]\n");
        b.append("}\n");
        return b.toString();
    }

    private static void field(StringBuilder b, int indent, String k, String v, boolean more) {
        b.append("  ".repeat(indent)).append(quote(k)).append(": ").append(quote(v)).append(more ? ",\n" : "\n");
    }

    private static String strings(List<String> xs) {
        List<String> q = new ArrayList<>();
        for (String x : xs) {
            q.add(quote(x));
        }
        return "[" + String.join(", ", q) + "]";
    }

    static String quote(String s) {
        if (s == null) {
            return "null";
        }
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"':
                    b.append("\\\"");
                    break;
                case '\\':
                    b.append("\\\\");
                    break;
                case '\n':
                    b.append("\\n");
                    break;
                case '\r':
                    b.append("\\r");
                    break;
                case '\t':
                    b.append("\\t");
                    break;
                default:
                    if (c < 0x20) {
                        b.append(String.format(Locale.ROOT, "\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
            }
        }
        return b.append('"').toString();
    }

    static List<String> operators() {
        return Arrays.asList(
                "inner_join", "drop_conjunct", "null_column", "constant_column", "lose_keys",
                "duplicate_output", "append_only_sink");
    }
}
