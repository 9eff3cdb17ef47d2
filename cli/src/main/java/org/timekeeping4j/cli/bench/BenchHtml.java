package org.timekeeping4j.cli.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.timekeeping4j.ClockId;

/**
 * {@code tk4j bench --html}: one self-contained page (no scripts, fonts or images from anywhere: inline CSS and
 * SVG only). One bar chart per clock, a bar per path: the bar is the p50 ns per call, the whisker spans p50 to
 * p99, the dashed line is the p50 of the clock's JDK baseline, a call of its own kind ({@link Baseline}); the label
 * says the ratio of p50s as the terminal table does (median over rounds, lowest-highest round), or none where the
 * JDK has no call of the kind. The full table follows the charts. Every figure on the page is this run's: the key
 * states none of its own.
 */
public final class BenchHtml {

    private static final String[] PALETTE = {"#2563eb", "#ea580c", "#16a34a", "#9333ea", "#0891b2", "#ca8a04",
            "#db2777", "#4b5563"};
    private static final String JDK_COLOUR = "#6b7280";
    /** A label is bold where the path is faster than the JDK: its ratio below this, its rounds agreeing. */
    static final double BOLD_BELOW = 0.95;
    /** A cell this many times slower than the fastest of its chart counts as slow when scaling the chart. */
    private static final double SLOW_RATIO = 5;

    private BenchHtml() {}

    public static String render(List<ReadBenchmark.CellResult> results, Map<String, Object> machine, String when) {
        Map<ClockId, List<ReadBenchmark.CellResult>> byClock = new LinkedHashMap<>();
        List<String> pathOrder = new ArrayList<>();
        for (ReadBenchmark.CellResult r : results) {
            byClock.computeIfAbsent(r.cell().clock(), c -> new ArrayList<>()).add(r);
            if (!pathOrder.contains(r.cell().path().name())) {
                pathOrder.add(r.cell().path().name());
            }
        }
        StringBuilder h = new StringBuilder();
        h.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>tk4j bench</title>\n<style>\n")
                .append("body{font-family:system-ui,-apple-system,'Segoe UI',sans-serif;margin:24px 32px;color:#111;}")
                .append("h1{font-size:22px;margin:0 0 4px}h2{font-size:15px;margin:18px 0 2px}")
                .append(".meta{color:#555;font-size:13px;margin-bottom:8px}")
                .append(".grid{display:flex;flex-wrap:wrap;gap:8px 28px}")
                .append(".chart{width:630px}.note{font-size:12px;color:#555;max-width:1150px}")
                .append("table{border-collapse:collapse;font-size:12px;margin-top:18px}")
                .append("td,th{padding:2px 10px;text-align:right;border-bottom:1px solid #eee}")
                .append("td:nth-child(-n+3),th:nth-child(-n+3){text-align:left}")
                .append(".key{display:grid;grid-template-columns:110px 1fr;gap:3px 10px;font-size:12px;color:#333;")
                .append("max-width:1150px;margin:6px 0 10px;align-items:center}.key svg{display:block}")
                .append("</style></head><body>\n");
        h.append("<h1>tk4j bench: ns per clock read, by path</h1>\n");
        h.append("<div class=\"meta\">").append(esc(when)).append(" &middot; ").append(esc(str(machine.get("kernel"))))
                .append(" ").append(esc(str(machine.get("machine")))).append(" &middot; clocksource ")
                .append(esc(str(machine.get("clocksource")))).append(" &middot; Java ").append(esc(str(machine.get("java"))))
                .append("</div>\n");
        legend(h, machine.get("batch"), results);
        h.append("<div class=\"grid\">\n");
        for (Map.Entry<ClockId, List<ReadBenchmark.CellResult>> e : byClock.entrySet()) {
            h.append("<div class=\"chart\"><h2>").append(esc(e.getKey().kernelName())).append("</h2>\n");
            ReadBenchmark.CellResult first = e.getValue().get(0);
            h.append("<div class=\"note\">").append(esc(first.hasBaseline() ? "baseline (dashed line): "
                    + first.baselineCall() + ", p50 " + fmt(first.baselineP50Ns()) + " ns" : Baseline.NONE
                    + ": no ratios")).append("</div>\n");
            chart(h, e.getValue(), pathOrder);
            h.append("</div>\n");
        }
        h.append("</div>\n<table><tr><th>clock</th><th>path</th><th>call</th><th>mean ns</th><th>p50 ns</th>")
                .append("<th>p99 ns</th><th>calls</th><th>p50 vs JDK</th><th>JDK call</th></tr>\n");
        for (ReadBenchmark.CellResult r : results) {
            h.append("<tr><td>").append(esc(r.cell().clock().kernelName())).append("</td><td>")
                    .append(esc(r.cell().path().name())).append("</td><td>").append(esc(r.call())).append("</td><td>")
                    .append(fmt(r.meanNs())).append("</td><td>").append(fmt(r.p50Ns())).append("</td><td>")
                    .append(fmt(r.p99Ns())).append("</td><td>").append(String.format(Locale.ROOT, "%,d", r.calls()))
                    .append("</td><td>").append(esc(r.isBaseline() ? "(baseline)" : r.ratioText())).append("</td><td>")
                    .append(esc(r.baselineCall())).append("</td></tr>\n");
        }
        h.append("</table>\n<p class=\"note\">Made by <code>tk4j bench --html</code>; each cell runs in its own copy")
                .append(" of the timed loop, so every call is inlined as in JMH.</p>\n")
                .append("</body></html>\n");
        return h.toString();
    }

    /**
     * The key to every mark the charts use, each drawn as it appears there: the page explains itself (bold labels,
     * the grey bar, the dashed line, the whisker, the broken bar, "noisy").
     */
    private static void legend(StringBuilder h, Object batch, List<ReadBenchmark.CellResult> results) {
        String svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"106\" height=\"18\" font-size=\"11\" "
                + "font-family=\"system-ui,sans-serif\">";
        h.append("<div class=\"key\" id=\"key\">\n");
        key(h, svg + "<rect x=\"2\" y=\"3\" width=\"40\" height=\"12\" fill=\"" + PALETTE[0] + "\" rx=\"2\"/></svg>",
                "Bar: the p50 ns per call of a path (shorter is faster); one colour per path.");
        key(h, svg + "<rect x=\"2\" y=\"3\" width=\"40\" height=\"12\" fill=\"" + JDK_COLOUR + "\" rx=\"2\"/></svg>",
                "Grey bar, labelled (JDK): the baseline, the JDK's call of the clock's own kind in the same run, "
                        + "named under each chart's title: System.nanoTime or Instant.now for the wall and monotonic "
                        + "clocks (System.nanoTime where the JDK cannot read the clock itself), "
                        + "ThreadMXBean." + Baseline.THREAD_CPU_CALL + " and (com.sun.management) "
                        + "OperatingSystemMXBean." + Baseline.PROCESS_CPU_CALL + " for the CPU-time clocks. Where the JDK has no call of the kind, the chart says \"" + Baseline.NONE
                        + "\" and has no ratios.");
        key(h, svg + "<line x1=\"30\" y1=\"0\" x2=\"30\" y2=\"18\" stroke=\"" + JDK_COLOUR + "\" "
                        + "stroke-dasharray=\"4 3\" stroke-width=\"1.5\"/></svg>",
                "Dashed line: the baseline's p50, for comparing every bar of the chart with it.");
        key(h, svg + "<line x1=\"10\" y1=\"9\" x2=\"50\" y2=\"9\" stroke=\"#111\"/><line x1=\"10\" y1=\"5\" "
                        + "x2=\"10\" y2=\"13\" stroke=\"#111\"/><line x1=\"50\" y1=\"5\" x2=\"50\" y2=\"13\" "
                        + "stroke=\"#111\"/></svg>",
                "Whisker: from the p50 to the p99 of batches of " + batch + " calls (the spread of one run).");
        // The sample labels are this page's own (the first bold one, the first ratio), else placeholders.
        String boldSample = results.stream().filter(BenchHtml::bold).findFirst()
                .map(r -> String.format(Locale.ROOT, "%.2fx", r.p50Ratio())).orElse("n.nnx");
        String labelSample = results.stream().filter(r -> r.hasBaseline() && !r.isBaseline()).findFirst()
                .map(r -> String.format(Locale.ROOT, "%.2fx (%.2f-%.2f)", r.p50Ratio(), r.ratioLow(), r.ratioHigh()))
                .orElse("n.nnx (n.nn-n.nn)");
        key(h, svg + "<text x=\"2\" y=\"13\" font-weight=\"bold\">" + esc(boldSample) + "</text></svg>",
                String.format(Locale.ROOT, "Bold label: faster than the baseline, its p50 ratio below %.2f with rounds "
                        + "that agree. A plain label: as fast as the baseline or slower, or too noisy to rank.",
                        BOLD_BELOW));
        key(h, svg + "<text x=\"2\" y=\"13\">" + esc(labelSample) + "</text></svg>",
                "Label: the p50 and its ratio to the baseline's p50: the median over alternating rounds, with the "
                        + "lowest and highest round's ratio in brackets.");
        key(h, svg + "<text x=\"2\" y=\"13\">noisy</text></svg>", String.format(Locale.ROOT, "noisy: the rounds' "
                + "ratios differ by more than %.0f%% of the median, too much to rank the path against the baseline "
                + "(a busy machine; run again, or longer with -t).", ReadBenchmark.NOISY_SPREAD * 100));
        key(h, svg + "<rect x=\"2\" y=\"3\" width=\"100\" height=\"12\" fill=\"" + PALETTE[1] + "\" rx=\"2\"/>"
                        + "<path d=\"M76 3 l4 6 l-4 6 h5 l4 -6 l-4 -6 z\" fill=\"white\"/></svg>",
                "Broken bar: a slow path (its p50 over " + fmtRatio(SLOW_RATIO) + " the fastest of its chart) "
                        + "running off the axis, which then fits the fast paths; its value is in its label."
                        + syscallFigure(results));
        h.append("</div>\n");
    }

    /** Whether a row's label is bold: faster than its baseline ({@link #BOLD_BELOW}), its rounds agreeing. */
    static boolean bold(ReadBenchmark.CellResult r) {
        return r.hasBaseline() && !r.isBaseline() && r.p50Ratio() < BOLD_BELOW && !r.noisy();
    }

    private static void key(StringBuilder h, String mark, String words) {
        h.append("<div>").append(mark).append("</div><div>").append(esc(words)).append("</div>\n");
    }

    private static void chart(StringBuilder h, List<ReadBenchmark.CellResult> rows, List<String> pathOrder) {
        int labelW = 150;
        int barW = 290;
        int valueW = 190;
        int rowH = 26;
        int top = 6;
        int width = labelW + barW + valueW;
        int height = top + rows.size() * rowH + 18;
        boolean base = rows.get(0).hasBaseline();
        double basis = base ? rows.get(0).baselineP50Ns() : 0;
        double fastest = rows.stream().mapToDouble(ReadBenchmark.CellResult::p50Ns).min().orElse(0);
        double max = basis;
        double fastMax = basis;
        boolean anySlow = false;
        for (ReadBenchmark.CellResult r : rows) {
            max = Math.max(max, Math.max(r.p99Ns(), r.p50Ns()));
            if (r.p50Ns() > SLOW_RATIO * fastest) {
                anySlow = true;
            } else {
                fastMax = Math.max(fastMax, r.p99Ns());
            }
        }
        // A system call can be many times a vDSO read (the key says how many in this run): on one linear axis the
        // fast bars would be slivers. Where a chart has slow bars, the axis fits the fast ones (the fastest always
        // is) and the slow bars run off the edge, broken, their value in the label.
        if (anySlow) {
            max = fastMax * 1.3;
        }
        double axisLimit = niceCeil(max);
        double scale = barW / axisLimit;
        h.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "font-size=\"12\" font-family=\"system-ui,sans-serif\">\n", width, height));
        // Axis ticks
        double axisMax = axisLimit;
        for (int i = 0; i <= 4; i++) {
            double v = axisMax * i / 4;
            double x = labelW + v * scale;
            h.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#eee\"/>"
                    + "<text x=\"%.1f\" y=\"%d\" fill=\"#888\" font-size=\"10\" text-anchor=\"middle\">%s</text>\n",
                    x, top, x, height - 16, x, height - 4, fmtAxis(v)));
        }
        for (int i = 0; i < rows.size(); i++) {
            ReadBenchmark.CellResult r = rows.get(i);
            int y = top + i * rowH;
            boolean jdk = r.isBaseline();
            String colour = jdk ? JDK_COLOUR : PALETTE[pathOrder.indexOf(r.cell().path().name()) % PALETTE.length];
            h.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%s</text>\n",
                    labelW - 6, y + 12, esc(r.cell().path().name())));
            h.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" fill=\"#777\" "
                    + "font-size=\"10\">%s</text>\n", labelW - 6, y + 23, esc(r.call())));
            boolean off = r.p50Ns() > axisLimit;
            double w = off ? barW + 4 : Math.max(1, r.p50Ns() * scale);
            h.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"16\" fill=\"%s\" "
                    + "rx=\"2\"/>\n", labelW, y + 3, w, colour));
            if (off) { // a white zig-zag: the bar is broken, it goes on far past the axis
                double bx = labelW + barW - 30;
                h.append(String.format(Locale.ROOT, "<path d=\"M%.1f %d l5 8 l-5 8 h6 l5 -8 l-5 -8 z\" fill=\"white\"/>\n",
                        bx, y + 3));
            }
            double x50 = labelW + Math.min(r.p50Ns(), axisLimit) * scale;
            double x99 = labelW + Math.min(r.p99Ns(), axisLimit) * scale;
            h.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#111\"/>"
                    + "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#111\"/>"
                    + "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#111\"/>\n",
                    x50, y + 11, x99, y + 11, x50, y + 7, x50, y + 15, x99, y + 7, x99, y + 15));
            String label = fmt(r.p50Ns()) + " ns" + (jdk ? "  (JDK)" : r.hasBaseline() ? "  " + r.ratioText() : "");
            h.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-weight=\"%s\">%s</text>\n",
                    labelW + barW + 6, y + 15, bold(r) ? "bold" : "normal",
                    esc(label)));
        }
        if (base) {
            double bx = labelW + basis * scale;
            h.append(String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"%s\" "
                    + "stroke-dasharray=\"4 3\" stroke-width=\"1.5\"/>\n", bx, top, bx, height - 16, JDK_COLOUR));
        }
        h.append("</svg>\n");
    }

    /**
     * The system call's cost in this run, for the key: per clock with a {@code syscall} row and another, the
     * syscall's p50 over the fastest p50 of that clock; their median, lowest and highest. Empty where no clock has
     * both.
     */
    static String syscallFigure(List<ReadBenchmark.CellResult> results) {
        double[] ratios = syscallRatios(results);
        int n = ratios.length;
        if (n == 0) {
            return "";
        }
        double median = n % 2 == 1 ? ratios[n / 2] : (ratios[n / 2 - 1] + ratios[n / 2]) / 2;
        return " In this run the clock_gettime system call (the syscall path) takes " + (n == 1 ? ""
                : "a median of ") + fmtRatio(median) + " the p50 of the fastest path of the same clock" + (n == 1 ? "."
                : " (" + fmtRatio(ratios[0]) + "-" + fmtRatio(ratios[n - 1]) + " over " + n + " clocks).");
    }

    /** Per clock with a syscall row and another row: syscall p50 / the clock's fastest p50, sorted. */
    static double[] syscallRatios(List<ReadBenchmark.CellResult> results) {
        Map<ClockId, List<ReadBenchmark.CellResult>> byClock = new LinkedHashMap<>();
        results.forEach(r -> byClock.computeIfAbsent(r.cell().clock(), c -> new ArrayList<>()).add(r));
        return byClock.values().stream().filter(rows -> rows.size() > 1).flatMap(rows -> {
            double fastest = rows.stream().mapToDouble(ReadBenchmark.CellResult::p50Ns).min().orElseThrow();
            return rows.stream().filter(r -> r.cell().path().name().equals("syscall"))
                    .map(r -> r.p50Ns() / fastest);
        }).mapToDouble(Double::doubleValue).sorted().toArray();
    }

    private static String fmtRatio(double ratio) {
        return String.format(Locale.ROOT, "%.1fx", ratio);
    }

    private static double niceCeil(double v) {
        if (v <= 0) {
            return 1;
        }
        double mag = Math.pow(10, Math.floor(Math.log10(v)));
        for (double m : new double[] {1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10}) {
            if (m * mag >= v) {
                return m * mag;
            }
        }
        return 10 * mag;
    }

    private static String fmtAxis(double v) {
        return v == Math.rint(v) ? String.format(Locale.ROOT, "%.0f ns", v) : String.format(Locale.ROOT, "%.1f ns", v);
    }

    /** ns with one decimal below 100, none above. */
    public static String fmt(double ns) {
        return ns >= 100 ? String.format(Locale.ROOT, "%.0f", ns) : String.format(Locale.ROOT, "%.1f", ns);
    }

    private static String str(Object o) {
        return o == null ? "?" : o.toString();
    }

    private static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
