package labgen.prove.flink;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;

/**
 * prove-flink: runs rendered Flink SQL files through Flink's own SQL stack
 * (parser, catalogs, connector factories, planner) at pinned versions, with no
 * cluster and no servers. See README.md.
 */
public final class Main {

    private static final String USAGE =
            "usage: prove-flink [--mutants [--out FILE]] [--plans] [--stack] [--full-errors] [--timings] [--split-only] [--keep-temp] [--fluss-conf KEY=VALUE]... FILE.sql...\n"
                    + "  --mutants      instead of a report, print mutants of each file's job query as JSON\n"
                    + "                 (one document per file with an INSERT; files without one only set up\n"
                    + "                 tables, e.g. lake_tables.sql); exit 1 if a mutant does not parse or plan\n"
                    + "  --out FILE     with --mutants: write the JSON to FILE instead of stdout\n"
                    + "  --plans        print Flink's EXPLAIN output for every planned statement\n"
                    + "  --stack        print stack traces of failures\n"
                    + "  --timings      print the time each statement took\n"
                    + "  --full-errors  do not shorten long lists in Flink's messages\n"
                    + "  --split-only   only print how each file splits into statements (file:line:col text)\n"
                    + "  --keep-temp    keep the temp dir (rewritten warehouses, stand-in lake tables)\n"
                    + "  --fluss-conf   configuration of the stand-in Fluss cluster, as in its server.yaml\n"
                    + "                 (defaults: datalake.format=paimon, datalake.paimon.metastore=filesystem,\n"
                    + "                 datalake.paimon.warehouse=file:///warehouse/paimon; every *.warehouse\n"
                    + "                 is mapped under the run's temp dir, like the files' catalog warehouses)\n"
                    + "Files are proved in the order given; catalogs with storage (Iceberg, Paimon, the\n"
                    + "Fluss stand-in) keep their tables from one file to the next, as the lab's servers do.\n"
                    + "Exit status: 0 all statements passed, 1 some statement failed, 2 usage error.";

    public static void main(String[] args) throws Exception {
        System.exit(run(args, System.out));
    }

    static int run(String[] args, PrintStream out) throws IOException {
        Prover.Options opts = new Prover.Options();
        boolean keepTemp = false;
        boolean splitOnly = false;
        boolean mutants = false;
        Path outFile = null;
        Map<String, String> flussConf = new LinkedHashMap<>();
        List<Path> files = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--plans":
                    opts.plans = true;
                    break;
                case "--stack":
                    opts.stack = true;
                    break;
                case "--timings":
                    opts.timings = true;
                    break;
                case "--full-errors":
                    opts.fullErrors = true;
                    break;
                case "--mutants":
                    mutants = true;
                    break;
                case "--out":
                    if (i + 1 >= args.length) {
                        System.err.println("--out needs FILE\n" + USAGE);
                        return 2;
                    }
                    outFile = Paths.get(args[++i]);
                    break;
                case "--split-only":
                    splitOnly = true;
                    break;
                case "--keep-temp":
                    keepTemp = true;
                    break;
                case "--fluss-conf":
                    if (i + 1 >= args.length || !args[i + 1].contains("=")) {
                        System.err.println("--fluss-conf needs KEY=VALUE\n" + USAGE);
                        return 2;
                    }
                    String kv = args[++i];
                    flussConf.put(kv.substring(0, kv.indexOf('=')), kv.substring(kv.indexOf('=') + 1));
                    break;
                case "-h":
                case "--help":
                    out.println(USAGE);
                    return 0;
                default:
                    if (a.startsWith("-")) {
                        System.err.println("unknown option " + a + "\n" + USAGE);
                        return 2;
                    }
                    files.add(Paths.get(a));
            }
        }
        if (files.isEmpty()) {
            System.err.println(USAGE);
            return 2;
        }

        if (splitOnly) {
            return splitOnly(files, out);
        }

        Path temp = Files.createTempDirectory("prove-flink-");
        Map<String, String> cluster = new LinkedHashMap<>();
        cluster.put("datalake.format", "paimon");
        cluster.put("datalake.paimon.metastore", "filesystem");
        cluster.put("datalake.paimon.warehouse", "file:///warehouse/paimon");
        cluster.putAll(flussConf);
        List<String> rewrites = new ArrayList<>();
        for (Map.Entry<String, String> e : cluster.entrySet()) {
            if (e.getKey().endsWith(".warehouse")) {
                String local = Prover.localWarehouse(temp, e.getValue());
                rewrites.add(e.getKey() + ": '" + e.getValue() + "' rewritten to '" + local + "'");
                e.setValue(local);
            }
        }

        if (mutants) {
            try {
                return mutants(files, temp, cluster, opts, outFile, out);
            } finally {
                if (!keepTemp) {
                    deleteTree(temp);
                }
            }
        }

        out.println("prove-flink: " + versions());
        out.println("temp dir: " + temp + (keepTemp ? " (kept)" : " (removed at exit)"));
        out.println("Fluss stand-in cluster configuration (--fluss-conf to change): " + cluster);
        for (String r : rewrites) {
            out.println("  " + r);
        }
        out.println();

        FlussStandin fluss = new FlussStandin(cluster);
        Prover prover = new Prover(temp, fluss, opts, out);
        List<Prover.FileResult> results = new ArrayList<>();
        try {
            for (Path f : files) {
                results.add(prover.prove(f));
            }
        } finally {
            if (!keepTemp) {
                deleteTree(temp);
            }
        }

        int failed = 0;
        int executed = 0;
        int planned = 0;
        int live = 0;
        out.println("== summary");
        for (Prover.FileResult r : results) {
            out.printf(
                    "   %-50s %3d executed / %3d planned / %3d need a live server / %3d failed%n",
                    r.file, r.executed, r.planned, r.live, r.failed);
            executed += r.executed;
            planned += r.planned;
            live += r.live;
            failed += r.failed;
        }
        out.printf(
                "   total: %d executed, %d planned, %d need a live server, %d failed%n",
                executed, planned, live, failed);
        for (Prover.FileResult r : results) {
            for (String reason : r.liveReasons) {
                out.printf("   live: %s:%s%n", r.file, reason.replaceFirst("^line ", ""));
            }
        }
        out.println(failed == 0 ? "PASS" : "FAIL");
        return failed == 0 ? 0 : 1;
    }

    /**
     * --mutants: proves the files in order (one JVM, shared storage, as in a report) and
     * prints the mutants of each file that has a job (an INSERT). The prover's report goes
     * to a buffer, shown on stderr only when something fails.
     */
    private static int mutants(
            List<Path> files,
            Path temp,
            Map<String, String> cluster,
            Prover.Options opts,
            Path outFile,
            PrintStream out)
            throws IOException {
        java.io.ByteArrayOutputStream log = new java.io.ByteArrayOutputStream();
        PrintStream logOut = new PrintStream(log, true, StandardCharsets.UTF_8);
        Prover prover = new Prover(temp, new FlussStandin(cluster), opts, logOut);
        Mutants gen = new Mutants(prover, log);
        StringBuilder json = new StringBuilder();
        for (Path f : files) {
            Mutants.Job job;
            try {
                job = gen.generate(f);
            } catch (Mutants.GeneratorException e) {
                System.err.println("prove-flink --mutants: " + f + ": " + e.getMessage());
                return 1;
            }
            if (job == null) {
                System.err.println("prove-flink --mutants: " + f + ": no INSERT; proved as setup");
                continue;
            }
            int made = 0;
            int skipped = 0;
            int equivalent = 0;
            for (Mutants.Mutant m : job.mutants) {
                if (m.skipped != null) {
                    skipped++;
                } else {
                    made++;
                    equivalent += m.equivalent ? 1 : 0;
                }
            }
            System.err.printf(
                    "prove-flink --mutants: %s: job %s: %d mutants planned (%d equivalent), %d skipped%n",
                    f, job.job, made, equivalent, skipped);
            json.append(Mutants.json(job));
        }
        byte[] bytes = json.toString().getBytes(StandardCharsets.UTF_8);
        if (outFile != null) {
            Files.write(outFile, bytes);
        } else {
            out.write(bytes);
            out.flush();
        }
        return 0;
    }

    /** Prints how each file splits into statements (no Flink involved). */
    private static int splitOnly(List<Path> files, PrintStream out) throws IOException {
        int rc = 0;
        for (Path f : files) {
            String script = new String(Files.readAllBytes(f), StandardCharsets.UTF_8);
            try {
                for (SqlSplitter.Statement s : SqlSplitter.split(script)) {
                    String oneLine = s.text.replaceAll("\\s+", " ");
                    out.printf(
                            "%s:%d:%d%s %s%n",
                            f,
                            s.line,
                            s.column,
                            s.terminated ? "" : " (no ';')",
                            oneLine);
                }
            } catch (SqlSplitter.SplitException e) {
                out.printf("%s:%d: cannot split: %s%n", f, e.line, e.getMessage());
                rc = 1;
            }
        }
        return rc;
    }

    private static String versions() {
        Properties p = new Properties();
        try (InputStream in = Main.class.getResourceAsStream("/prove-flink-versions.properties")) {
            if (in != null) {
                p.load(new java.io.InputStreamReader(in, StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            return "(versions unknown)";
        }
        return String.format(
                "Flink %s, mysql-cdc %s (+ mysql-connector-j %s), kafka connector %s, jdbc connector %s,"
                        + " Iceberg %s, Paimon %s, Fluss %s, Hadoop: %s",
                p.getProperty("flink.version"),
                p.getProperty("flink.cdc.version"),
                p.getProperty("mysql.connector.version"),
                p.getProperty("flink.kafka.connector.version"),
                p.getProperty("flink.jdbc.connector.version"),
                p.getProperty("iceberg.version"),
                p.getProperty("paimon.version"),
                p.getProperty("fluss.version"),
                p.getProperty("hadoop.bundle"));
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> s = Files.walk(root)) {
            s.sorted(Comparator.reverseOrder())
                    .forEach(
                            p -> {
                                try {
                                    Files.delete(p);
                                } catch (IOException ignored) {
                                    // best effort
                                }
                            });
        }
    }
}
