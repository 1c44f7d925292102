package labgen.prove.flink;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Splits a Flink SQL script into complete statements the way sql-client's -f
 * does for the constructs labgen renders:
 *
 * <ul>
 *   <li>{@code --} line comments and {@code /* ... *&#47;} block comments (a {@code ;}
 *       inside a comment does not end a statement);
 *   <li>'single-quoted' strings with '' escapes, "double-quoted" strings and
 *       `back-quoted` identifiers (a {@code ;} inside them does not end a statement);
 *   <li>{@code EXECUTE STATEMENT SET BEGIN ... END;} kept as one statement: inside
 *       it a {@code ;} ends the statement only right after the keyword {@code END}
 *       (the older {@code BEGIN STATEMENT SET; ... END;} is a series of ordinary
 *       statements, as in sql-client).
 * </ul>
 *
 * Each statement keeps its text exactly as in the file, from its first token to
 * (not including) its terminating {@code ;}, so that a line number that Flink
 * reports inside the statement maps to the file by simple addition.
 */
final class SqlSplitter {

    /** One statement of a script. */
    static final class Statement {
        final String text;
        /** 1-based line and column of the statement's first token in the file. */
        final int line;
        final int column;
        /** false if the script ended without a terminating ';'. */
        final boolean terminated;

        Statement(String text, int line, int column, boolean terminated) {
            this.text = text;
            this.line = line;
            this.column = column;
            this.terminated = terminated;
        }
    }

    /** Thrown for a script that cannot be split (unclosed quote or comment). */
    static final class SplitException extends Exception {
        final int line;

        SplitException(String message, int line) {
            super(message);
            this.line = line;
        }
    }

    private SqlSplitter() {}

    static List<Statement> split(String script) throws SplitException {
        List<Statement> out = new ArrayList<>();
        int n = script.length();
        int i = 0;
        int line = 1;
        int col = 1;

        int start = -1; // offset of the current statement's first token
        int startLine = 0;
        int startCol = 0;
        // words of the current statement outside quotes and comments, upper-cased,
        // only the first few (to recognise statement sets) and the last one
        List<String> leadWords = new ArrayList<>();
        String lastWord = "";
        boolean statementSet = false;
        // CASE ... END nesting, so that "... ELSE 0 END;" inside a statement set
        // does not end the set
        int caseDepth = 0;

        while (i < n) {
            char c = script.charAt(i);
            char next = i + 1 < n ? script.charAt(i + 1) : '\0';

            // line comment
            if (c == '-' && next == '-') {
                while (i < n && script.charAt(i) != '\n') {
                    i++;
                    col++;
                }
                continue;
            }
            // block comment
            if (c == '/' && next == '*') {
                int openLine = line;
                i += 2;
                col += 2;
                boolean closed = false;
                while (i < n) {
                    char d = script.charAt(i);
                    if (d == '*' && i + 1 < n && script.charAt(i + 1) == '/') {
                        i += 2;
                        col += 2;
                        closed = true;
                        break;
                    }
                    if (d == '\n') {
                        line++;
                        col = 1;
                    } else {
                        col++;
                    }
                    i++;
                }
                if (!closed) {
                    throw new SplitException("unclosed /* comment", openLine);
                }
                continue;
            }
            if (c == '\n') {
                line++;
                col = 1;
                i++;
                continue;
            }
            if (Character.isWhitespace(c)) {
                i++;
                col++;
                continue;
            }

            // an empty statement (";;" or a leading ";")
            if (c == ';' && start < 0) {
                i++;
                col++;
                continue;
            }

            // a token starts here
            if (start < 0) {
                start = i;
                startLine = line;
                startCol = col;
                leadWords.clear();
                lastWord = "";
                statementSet = false;
                caseDepth = 0;
            }

            if (c == '\'' || c == '"' || c == '`') {
                int openLine = line;
                i++;
                col++;
                boolean closed = false;
                while (i < n) {
                    char d = script.charAt(i);
                    if (d == c) {
                        // doubled quote is an escaped quote
                        if (i + 1 < n && script.charAt(i + 1) == c) {
                            i += 2;
                            col += 2;
                            continue;
                        }
                        i++;
                        col++;
                        closed = true;
                        break;
                    }
                    if (d == '\n') {
                        line++;
                        col = 1;
                    } else {
                        col++;
                    }
                    i++;
                }
                if (!closed) {
                    throw new SplitException("unclosed " + c + " quote", openLine);
                }
                lastWord = "";
                continue;
            }

            if (c == ';') {
                boolean ends = !statementSet || (lastWord.equals("END") && caseDepth < 0);
                if (ends) {
                    out.add(new Statement(script.substring(start, i), startLine, startCol, true));
                    start = -1;
                }
                lastWord = "";
                i++;
                col++;
                continue;
            }

            if (Character.isLetterOrDigit(c) || c == '_' || c == '$') {
                int w = i;
                while (i < n) {
                    char d = script.charAt(i);
                    if (!(Character.isLetterOrDigit(d) || d == '_' || d == '$')) {
                        break;
                    }
                    i++;
                    col++;
                }
                lastWord = script.substring(w, i).toUpperCase(Locale.ROOT);
                if (lastWord.equals("CASE")) {
                    caseDepth++;
                } else if (lastWord.equals("END")) {
                    // closes a CASE, or (depth going below zero) the statement set
                    caseDepth--;
                }
                if (leadWords.size() < 3) {
                    leadWords.add(lastWord);
                    if (leadWords.size() == 3) {
                        statementSet = isStatementSetStart(leadWords);
                    }
                }
                continue;
            }

            // any other character (operators, parentheses, dots, ...)
            lastWord = "";
            i++;
            col++;
        }

        if (start >= 0) {
            String rest = script.substring(start).trim();
            if (!rest.isEmpty()) {
                out.add(new Statement(rest, startLine, startCol, false));
            }
        }
        return out;
    }

    private static boolean isStatementSetStart(List<String> words) {
        // EXECUTE STATEMENT SET BEGIN ... END;
        // (the older "BEGIN STATEMENT SET; ...; END;" is a series of ordinary
        // statements, as in sql-client; the prover collects them.)
        return words.get(0).equals("EXECUTE")
                && words.get(1).equals("STATEMENT")
                && words.get(2).equals("SET");
    }
}
