package dev.outbox.benchmark;

import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/** The printed summary: one row per measurement, as a Markdown table. */
final class ResultTable {

    private static final String[] HEADER = {"measurement", "result", "vs DB limit", "checks"};

    private final List<String[]> rows = new ArrayList<>();
    private final List<String> warnings = new ArrayList<>();

    void row(String measurement, String result, String versusLimit, String checks) {
        rows.add(new String[] {measurement, result, versusLimit, checks});
    }

    /** A line printed under the table. */
    void warning(String warning) {
        warnings.add(warning);
    }

    /** Fills in the "vs DB limit" cell of the row named {@code measurement}. */
    void ratio(String measurement, String ratio) {
        for (String[] row : rows) {
            if (row[0].equals(measurement)) {
                row[2] = ratio;
            }
        }
    }

    void print(PrintStream out) {
        int[] widths = new int[HEADER.length];
        for (int column = 0; column < HEADER.length; column++) {
            widths[column] = HEADER[column].length();
            for (String[] row : rows) {
                widths[column] = Math.max(widths[column], row[column].length());
            }
        }
        out.println(line(HEADER, widths));
        String[] rule = new String[HEADER.length];
        for (int column = 0; column < HEADER.length; column++) {
            rule[column] = "-".repeat(widths[column]);
        }
        out.println(line(rule, widths));
        rows.forEach(row -> out.println(line(row, widths)));
        if (!warnings.isEmpty()) {
            out.println();
            warnings.forEach(warning -> out.println("WARNING " + warning));
        }
    }

    static String count(long value) {
        return String.format("%,d", value);
    }

    static String secs(double seconds) {
        return String.format("%.1f s", seconds);
    }

    static String perSecond(double rate) {
        return String.format("%,.0f rec/s", rate);
    }

    private static String line(String[] cells, int[] widths) {
        StringBuilder line = new StringBuilder("|");
        for (int column = 0; column < cells.length; column++) {
            line.append(' ').append(cells[column]).append(" ".repeat(widths[column] - cells[column].length()))
                    .append(" |");
        }
        return line.toString();
    }
}
