import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * scripts/startup-bench.sh's report, in Markdown. {@code summary DIR}: the rounds' lines (DIR/results) as medians,
 * ranges and ratios to each variant's baseline, with the start-up targets; {@code footprint DIR}: the classes each
 * variant loaded and NMT's areas, against the bare FFM program.
 */
public class Summary {

    /** The bare program that made one FFM clock_gettime: the footprint's baseline. */
    static final String BARE_FFM = "ffm-monotonic";
    /** The same with an empty module on the module path: the module-path variants' footprint baseline. */
    static final String BARE_FFM_MP = "ffm-monotonic-mp";

    /** The footprint baseline of {@code variant}: the bare FFM program on the same kind of path. */
    static String bareOf(String variant) {
        return variant.startsWith("mp-") || variant.startsWith("aot-mp-") || variant.equals(BARE_FFM_MP)
                ? BARE_FFM_MP : BARE_FFM;
    }

    /** The median VmRSS of {@code variant}'s footprint baseline, in kB; NaN where it did not run. */
    static double bareRss(Map<String, List<Run>> runs, String variant) {
        List<Run> b = runs.getOrDefault(bareOf(variant), List.of());
        return b.isEmpty() ? Double.NaN : median(b, "rss_kb");
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[1]);
        System.out.print(Files.readString(dir.resolve("header")));
        if (args[0].equals("footprint")) {
            footprint(dir);
        } else {
            summary(dir);
        }
    }

    record Run(String variant, int round, Map<String, Long> f) {}

    static void summary(Path dir) throws Exception {
        Map<String, String> baseline = new LinkedHashMap<>();
        for (String l : Files.readAllLines(dir.resolve("variants"))) {
            String[] p = l.split("\\|", -1);
            baseline.put(p[0], p.length > 1 ? p[1] : "");
        }
        Map<String, List<Run>> runs = new LinkedHashMap<>();
        baseline.keySet().forEach(v -> runs.put(v, new ArrayList<>()));
        List<Double> loads = new ArrayList<>();
        int rounds = 0;
        for (String l : Files.readAllLines(dir.resolve("results"))) {
            String[] w = l.split(" ");
            if (w[0].equals("load")) {
                loads.add(Double.parseDouble(w[2]));
                rounds = Math.max(rounds, Integer.parseInt(w[1]) + 1);
                continue;
            }
            Map<String, Long> f = new HashMap<>();
            for (int i = 2; i < w.length; i++) {
                int eq = w[i].indexOf('=');
                if (eq > 0) {
                    f.put(w[i].substring(0, eq), Long.parseLong(w[i].substring(eq + 1)));
                }
            }
            runs.get(w[0]).add(new Run(w[0], Integer.parseInt(w[1]), f));
        }
        System.out.printf("load (1 min) %.2f-%.2f over %d rounds of %d variants, alternated%n%n",
                loads.stream().mapToDouble(d -> d).min().orElse(0), loads.stream().mapToDouble(d -> d).max().orElse(0),
                rounds, runs.size());

        System.out.println("First read, ms (System.nanoTime around the call, every class it initialises included):");
        System.out.println();
        table(runs, baseline, "first_ns", 1e6, true);
        System.out.println();
        System.out.println("Launch to the first read's return, ms (JVM start-up included):");
        System.out.println();
        table(runs, baseline, "launch_us", 1e3, false);

        System.out.println();
        System.out.println("Resident memory 300 ms after the first read, MB (VmRSS; anon, file: RssAnon, RssFile;"
                + " heap: used Java heap), against the bare FFM program on the same kind of path (" + BARE_FFM
                + "; " + BARE_FFM_MP + " for the module path) and against " + BARE_FFM + ":");
        System.out.println();
        System.out.println("| variant | VmRSS median | range | - its bare FFM | - " + BARE_FFM
                + " | anon | file | heap used | threads |");
        System.out.println("|---|---|---|---|---|---|---|---|---|");
        double bareRss = bareRss(runs, BARE_FFM);
        for (var e : runs.entrySet()) {
            List<Run> rs = e.getValue();
            if (rs.isEmpty()) {
                continue;
            }
            double rss = median(rs, "rss_kb");
            double own = bareRss(runs, e.getKey());
            System.out.printf("| %s | %.1f | %.1f-%.1f | %s | %s | %.1f | %.1f | %.1f | %.0f |%n", e.getKey(),
                    rss / 1024, min(rs, "rss_kb") / 1024, max(rs, "rss_kb") / 1024,
                    Double.isNaN(own) ? "" : String.format("%+.1f", (rss - own) / 1024),
                    Double.isNaN(bareRss) ? "" : String.format("%+.1f", (rss - bareRss) / 1024),
                    median(rs, "anon_kb") / 1024, median(rs, "file_kb") / 1024, median(rs, "heap_kb") / 1024,
                    median(rs, "threads"));
        }

        for (String sv : List.of("cp-serve", "aot-cp-serve")) {
            List<Run> serve = runs.getOrDefault(sv, List.of());
            if (serve.isEmpty()) {
                continue;
            }
            long failed = serve.stream().filter(r -> r.f.get("serve_ns") < 0).count();
            System.out.printf("%n%s: exact mode serves %.1f ms after the first read (median; range %.1f-%.1f; %d of"
                    + " %d runs never served within 10 s)%n", sv, median(serve, "serve_ns") / 1e6,
                    min(serve, "serve_ns") / 1e6, max(serve, "serve_ns") / 1e6, failed, serve.size());
            System.out.printf("VmRSS once it serves (and at least 300 ms after the first read; the diagnostics"
                    + " included): %.1f MB, %s against %s%n", median(serve, "rss_kb") / 1024,
                    Double.isNaN(bareRss) ? "?" : String.format("%+.1f MB", (median(serve, "rss_kb") - bareRss) / 1024),
                    BARE_FFM);
        }
        targets(runs, baseline, bareRss);
    }

    /**
     * One Markdown row per variant: median, range, baseline, the ratio (and the difference) of the medians, and the
     * median of the ratios within each round (the variant's run against its baseline's run of the same round, close
     * in time: steadier than the ratio of medians where other work comes and goes).
     */
    static void table(Map<String, List<Run>> runs, Map<String, String> baseline, String key, double unit,
            boolean difference) {
        System.out.println("| variant | median | range | baseline | ratio | per round |"
                + (difference ? " difference |" : ""));
        System.out.println("|---|---|---|---|---|---|" + (difference ? "---|" : ""));
        for (var e : runs.entrySet()) {
            List<Run> rs = e.getValue();
            if (rs.isEmpty()) {
                continue;
            }
            double m = median(rs, key) / unit;
            String b = baseline.get(e.getKey());
            List<Run> brs = b.isEmpty() ? List.of() : runs.getOrDefault(b, List.of());
            String ratio = "";
            String diff = "";
            String paired = "";
            if (!brs.isEmpty()) {
                Map<Integer, Long> byRound = new HashMap<>();
                brs.forEach(r -> byRound.put(r.round, r.f.get(key)));
                double[] q = rs.stream().filter(r -> byRound.containsKey(r.round))
                        .mapToDouble(r -> (double) r.f.get(key) / byRound.get(r.round)).sorted().toArray();
                if (q.length > 0) {
                    double pm = q.length % 2 == 1 ? q[q.length / 2] : (q[q.length / 2 - 1] + q[q.length / 2]) / 2;
                    paired = String.format(pm < 100 ? "%.2fx" : "%.0fx", pm);
                }
                double bm = median(brs, key) / unit;
                ratio = String.format(m / bm < 100 ? "%.2fx" : "%.0fx", m / bm);
                diff = String.format("%+.2f ms", m - bm);
            }
            System.out.printf("| %s | %s | %s-%s | %s | %s | %s |%s%n", e.getKey(), fmt(m), fmt(min(rs, key) / unit),
                    fmt(max(rs, key) / unit), b, ratio, paired, difference ? " " + diff + " |" : "");
        }
    }

    /** The start-up targets, on the medians. */
    static void targets(Map<String, List<Run>> runs, Map<String, String> baseline, double bareRss) {
        System.out.println();
        System.out.println("Targets (medians):");
        for (var e : runs.entrySet()) {
            String v = e.getKey();
            List<Run> rs = e.getValue();
            String b = baseline.get(v);
            if (v.equals("aot-cp-serve") && !rs.isEmpty()) { // the AOT recipe's: reported, the target is cp-serve's
                double s = median(rs, "serve_ns") / 1e6;
                verdict(s >= 0 && s <= 100, String.format("%s: exact mode serves %.1f ms after the first read"
                        + " (at most 100 ms)", v, s));
                continue;
            }
            if (rs.isEmpty() || v.startsWith("aot-") || !(v.startsWith("cp-") || v.startsWith("mp-"))) {
                continue;
            }
            List<Run> brs = runs.getOrDefault(b, List.of());
            if (!brs.isEmpty() && v.matches("(cp|mp)-(reader-)?(monotonic|realtime)")) {
                double d = (median(rs, "first_ns") - median(brs, "first_ns")) / 1e6;
                verdict(d <= 1.0, String.format("%s: first read %+.2f ms against %s (at most +1 ms)%s", v, d, b,
                        floor(runs, v, d)));
            } else if (!brs.isEmpty() && v.endsWith("boottime")) {
                double r = median(rs, "first_ns") / median(brs, "first_ns");
                verdict(r <= 1.10, String.format("%s: first read %.2fx %s (at most 1.10x)", v, r, b));
            } else if (v.equals("cp-serve")) {
                double s = median(rs, "serve_ns") / 1e6;
                List<Run> ffm = runs.getOrDefault(BARE_FFM, List.of());
                verdict(s >= 0 && s <= 100, String.format("%s: exact mode serves %.1f ms after the first read"
                        + " (at most 100 ms)%s", v, s, ffm.isEmpty() ? "" : String.format("; the JDK's FFM start-up"
                        + " alone, a bare program's first clock_gettime (%s): %.1f ms", BARE_FFM,
                        median(ffm, "first_ns") / 1e6)));
                continue; // its footprint includes the diagnostics it calls
            }
            double own = bareRss(runs, v);
            if (!Double.isNaN(own)) {
                double d = (median(rs, "rss_kb") - own) / 1024;
                String also = bareOf(v).equals(BARE_FFM) || Double.isNaN(bareRss) ? ""
                        : String.format("; %+.1f MB against %s", (median(rs, "rss_kb") - bareRss) / 1024, BARE_FFM);
                verdict(d <= 8, String.format("%s: VmRSS %+.1f MB against %s (at most +8 MB)%s", v, d, bareOf(v),
                        also));
            }
        }
    }

    /**
     * What a first read's difference {@code d} (ms against its baseline) is made of: the floor, a library of one class
     * in a jar of core's size on the same path (its first call against System.nanoTime), and the library's share above
     * it; empty where the floor's variant did not run.
     */
    static String floor(Map<String, List<Run>> runs, String v, double d) {
        String f = v.startsWith("mp-") ? "one-class-core-sized-module" : "one-class-core-sized-jar";
        List<Run> frs = runs.getOrDefault(f, List.of());
        List<Run> nano = runs.getOrDefault("jdk-nanotime", List.of());
        if (frs.isEmpty() || nano.isEmpty()) {
            return "";
        }
        double floor = (median(frs, "first_ns") - median(nano, "first_ns")) / 1e6;
        return String.format("; of which %+.2f ms is the floor (%s) and %+.2f ms the library's", floor, f, d - floor);
    }

    static void verdict(boolean met, String what) {
        System.out.println((met ? "  met     " : "  NOT MET ") + what);
    }

    static String fmt(double ms) {
        return ms < 1 ? String.format("%.3f", ms) : ms < 100 ? String.format("%.1f", ms) : String.format("%.0f", ms);
    }

    static double[] sorted(List<Run> rs, String key) {
        double[] a = rs.stream().mapToDouble(r -> r.f.getOrDefault(key, -1L)).toArray();
        Arrays.sort(a);
        return a;
    }

    static double median(List<Run> rs, String key) {
        double[] a = sorted(rs, key);
        return a.length % 2 == 1 ? a[a.length / 2] : (a[a.length / 2 - 1] + a[a.length / 2]) / 2;
    }

    static double min(List<Run> rs, String key) {
        return sorted(rs, key)[0];
    }

    static double max(List<Run> rs, String key) {
        double[] a = sorted(rs, key);
        return a[a.length - 1];
    }

    // --- footprint: DIR/NAME.classes (-Xlog:class+load) and DIR/NAME.nmt (the output, NMT's summary at exit)

    static final Pattern LOADED = Pattern.compile("\\[class,load\\] (\\S+) source: (.*)");
    static final Pattern NMT = Pattern.compile("^-\\s+(.+?) \\(reserved=(\\d+)(KB)?, committed=(\\d+)(KB)?");
    static final Pattern MALLOC = Pattern.compile("^\\s+malloc: (\\d+)(KB)? #\\d+, peak=(\\d+)(KB)?");
    static final Pattern PROBE = Pattern.compile("rss_kb=(\\d+) anon_kb=(\\d+) file_kb=(\\d+) heap_kb=(\\d+)");

    /** Adds {@code sign} per class to its package's [generated, parsed, archive] count. */
    static void count(Map<String, String> classes, Map<String, int[]> byPackage, int sign) {
        for (var e : classes.entrySet()) {
            String c = e.getKey().replaceAll("\\$\\$.*|/0x.*", "");
            int dot = c.lastIndexOf('.');
            String pkg = dot < 0 ? "(default)" : c.substring(0, dot);
            if (pkg.startsWith("org.timekeeping4j")) {
                pkg = "org.timekeeping4j (all)";
            }
            String src = e.getValue();
            int[] k = byPackage.computeIfAbsent(pkg, x -> new int[3]);
            k[src.contains("shared objects file") ? 2 : src.startsWith("jrt:") || src.startsWith("file:")
                    || src.startsWith("jar:") ? 1 : 0] += sign;
        }
    }

    static int total(int[] k) {
        return k[0] + k[1] + k[2];
    }

    static long kb(String n, String unit) {
        return unit == null ? Long.parseLong(n) / 1024 : Long.parseLong(n);
    }

    static void footprint(Path dir) throws Exception {
        List<String> names = new ArrayList<>();
        for (String n : List.of(BARE_FFM, "cp-monotonic", "mp-monotonic", "cp-boottime", "aot-ffm-monotonic",
                "aot-cp-monotonic")) {
            if (Files.exists(dir.resolve(n + ".nmt"))) {
                names.add(n);
            }
        }
        System.out.println();
        System.out.println("Classes loaded by the time of the measurement (-Xlog:class+load), by where from:");
        System.out.println();
        System.out.println("| variant | VmRSS MB | anon | file | heap used | classes | CDS/AOT archive | jrt (JDK, not archived) |"
                + " jar | generated (hidden, lambda forms) |");
        System.out.println("|---|---|---|---|---|---|---|---|---|---|");
        Map<String, Map<String, String>> loaded = new LinkedHashMap<>();
        Map<String, Map<String, Long>> nmt = new LinkedHashMap<>();
        for (String n : names) {
            Map<String, String> cls = new LinkedHashMap<>();
            for (String l : Files.readAllLines(dir.resolve(n + ".classes"))) {
                Matcher m = LOADED.matcher(l);
                if (m.find()) {
                    cls.put(m.group(1), m.group(2));
                }
            }
            loaded.put(n, cls);
            long shared = cls.values().stream().filter(s -> s.contains("shared objects file")).count();
            long jrt = cls.values().stream().filter(s -> s.startsWith("jrt:")).count();
            long jar = cls.values().stream().filter(s -> s.startsWith("file:") || s.startsWith("jar:")).count();
            Map<String, Long> areas = new LinkedHashMap<>();
            long[] probe = new long[4];
            for (String l : Files.readAllLines(dir.resolve(n + ".nmt"))) {
                Matcher m = NMT.matcher(l);
                if (m.find()) {
                    areas.put(m.group(1).strip(), kb(m.group(4), m.group(5)));
                }
                Matcher t = MALLOC.matcher(l);
                if (t.find()) {
                    areas.put("(all malloc)", kb(t.group(1), t.group(2)));
                    areas.put("(all malloc, peak)", kb(t.group(3), t.group(4)));
                }
                Matcher p = PROBE.matcher(l);
                if (p.find()) {
                    for (int i = 0; i < 4; i++) {
                        probe[i] = Long.parseLong(p.group(i + 1));
                    }
                }
            }
            nmt.put(n, areas);
            System.out.printf("| %s | %.1f | %.1f | %.1f | %.1f | %d | %d | %d | %d | %d |%n", n, probe[0] / 1024.0,
                    probe[1] / 1024.0, probe[2] / 1024.0, probe[3] / 1024.0, cls.size(), shared, jrt, jar,
                    cls.size() - shared - jrt - jar);
        }
        if (!loaded.containsKey(BARE_FFM)) {
            return;
        }
        for (String n : names) {
            if (n.equals(BARE_FFM) || n.startsWith("aot-")) {
                continue;
            }
            // Counts per package and origin, less the bare program's: generated classes have names of their own in
            // every JVM (LambdaForm$MH/0x...), so only their numbers compare.
            Map<String, int[]> byPackage = new TreeMap<>();
            count(loaded.get(n), byPackage, 1);
            count(loaded.get(BARE_FFM), byPackage, -1);
            System.out.printf("%n%s loads %d classes more than the bare FFM program; by package, the top 15"
                    + " (generated at run time, parsed from a jar or the JDK's image, mapped from the archive):%n%n", n,
                    byPackage.values().stream().mapToInt(k -> k[0] + k[1] + k[2]).sum());
            System.out.printf("    %-45s %9s %6s %8s%n", "package", "generated", "parsed", "archive");
            byPackage.entrySet().stream()
                    .sorted((a, b) -> Math.abs(total(b.getValue())) - Math.abs(total(a.getValue())))
                    .limit(15).forEach(e -> System.out.printf("    %-45s %9d %6d %8d%n", e.getKey(), e.getValue()[0],
                            e.getValue()[1], e.getValue()[2]));
        }
        System.out.println();
        System.out.println("NMT committed KB by area (heap: committed, not touched; VmRSS counts the touched part):");
        System.out.println();
        Set<String> areas = new HashSet<>();
        nmt.values().forEach(m -> areas.addAll(m.keySet()));
        StringBuilder head = new StringBuilder("| area |");
        StringBuilder rule = new StringBuilder("|---|");
        for (String n : names) {
            head.append(' ').append(n).append(" |");
            rule.append("---|");
            if (!n.equals(BARE_FFM)) {
                head.append(" - ").append(BARE_FFM).append(" |");
                rule.append("---|");
            }
        }
        System.out.println(head);
        System.out.println(rule);
        for (String a : nmt.get(BARE_FFM).keySet()) {
            StringBuilder row = new StringBuilder("| " + a + " |");
            long b = nmt.get(BARE_FFM).getOrDefault(a, 0L);
            for (String n : names) {
                long v = nmt.get(n).getOrDefault(a, 0L);
                row.append(' ').append(v).append(" |");
                if (!n.equals(BARE_FFM)) {
                    row.append(String.format(" %+d |", v - b));
                }
            }
            System.out.println(row);
        }
    }
}
