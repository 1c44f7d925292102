// Rendered by labgen into the lab's kubernetes/flink-image/.
package labgen;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.table.catalog.Catalog;
import org.apache.flink.table.catalog.ObjectPath;

/**
 * Runs SQL scripts as one Flink application: each argument is a script
 * file, run in order in one TableEnvironment. labgen's job SQL is a list
 * of statements each ending with ";" at the end of a line; SET sets an
 * option of the environment; EXECUTE STATEMENT SET ... END; is one
 * statement; "--" lines are comments; ${NAME} is the environment
 * variable NAME (the lab's .env values, from its Secret).
 *
 * <p>With --print-statements first, it only prints each statement
 * followed by a line "--;" and runs nothing (labgen's tests compare
 * that with its own splitter).
 *
 * <p>With --create-missing first, a CREATE TABLE IF NOT EXISTS of a
 * table its catalog already has is skipped, not run: Fluss refuses to
 * create a table again once its lake holds data, even with IF NOT
 * EXISTS. The lab's lake-tables Job runs lake_tables.sql so.
 */
public final class SqlRunner {
    private static final Pattern SET = Pattern.compile("(?is)SET\\s+'([^']+)'\\s*=\\s*'([^']*)'");
    private static final Pattern VAR = Pattern.compile("\\$\\{([A-Z0-9_]+)\\}");
    private static final Pattern CREATE_TABLE = Pattern.compile(
            "(?is)CREATE\\s+TABLE\\s+IF\\s+NOT\\s+EXISTS\\s+`?([^`.\\s]+)`?\\.`?([^`.\\s]+)`?\\.`?([^`.\\s(]+)`?.*");

    private SqlRunner() {}

    public static void main(String[] args) throws Exception {
        if (args.length == 0) {
            throw new IllegalArgumentException("usage: SqlRunner SCRIPT.sql ...");
        }
        if (args[0].equals("--print-statements")) {
            for (int i = 1; i < args.length; i++) {
                for (String statement : statements(Files.readString(Path.of(args[i]), StandardCharsets.UTF_8))) {
                    System.out.println(statement);
                    System.out.println("--;");
                }
            }
            return;
        }
        boolean createMissing = args[0].equals("--create-missing");
        TableEnvironment env = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        for (int i = createMissing ? 1 : 0; i < args.length; i++) {
            String script = Files.readString(Path.of(args[i]), StandardCharsets.UTF_8);
            for (String statement : statements(substitute(script))) {
                Matcher set = SET.matcher(statement);
                Matcher create = CREATE_TABLE.matcher(statement);
                if (set.matches()) {
                    env.getConfig().getConfiguration().setString(set.group(1), set.group(2));
                } else if (createMissing && create.matches()) {
                    String name = create.group(1) + "." + create.group(2) + "." + create.group(3);
                    Optional<Catalog> catalog = env.getCatalog(create.group(1));
                    if (catalog.isPresent() && catalog.get().tableExists(new ObjectPath(create.group(2), create.group(3)))) {
                        System.out.println("lake table " + name + ": exists, kept");
                        continue;
                    }
                    env.executeSql(statement);
                    System.out.println("lake table " + name + ": created");
                } else {
                    env.executeSql(statement);
                }
            }
        }
    }

    static String substitute(String script) {
        Matcher m = VAR.matcher(script);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String value = System.getenv(m.group(1));
            if (value == null) {
                throw new IllegalStateException("the script names ${" + m.group(1) + "}, which is not set");
            }
            m.appendReplacement(out, Matcher.quoteReplacement(value));
        }
        m.appendTail(out);
        return out.toString();
    }

    static List<String> statements(String script) {
        List<String> out = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        boolean inSet = false;
        for (String line : script.split("\n", -1)) {
            String trimmed = line.trim();
            if (current.length() == 0 && (trimmed.isEmpty() || trimmed.startsWith("--"))) {
                continue;
            }
            current.append(line).append('\n');
            String upper = trimmed.toUpperCase();
            if (current.length() == line.length() + 1 && upper.startsWith("EXECUTE STATEMENT SET")) {
                inSet = true;
            }
            boolean ends = inSet ? upper.equals("END;") : trimmed.endsWith(";");
            if (ends) {
                String s = current.toString().trim();
                out.add(s.substring(0, s.length() - 1));
                current.setLength(0);
                inSet = false;
            }
        }
        if (!current.toString().trim().isEmpty()) {
            out.add(current.toString().trim());
        }
        return out;
    }
}
