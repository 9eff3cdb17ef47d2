package org.timekeeping4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class MainJobTest {

    @Test
    void noArgumentsShowsPathsSpeedAndVerdictOnOneScreen() {
        Tk4jHarness r = Tk4jHarness.run("--budget", "1.5", "--verbose");
        assertThat(r.out()).contains("clocksource").containsPattern("(?m)^MONOTONIC ").contains("paths here:").contains("  kernel ")
                .contains("verify:");
        // Speed: ratios to the baseline, or, where the machine is too busy to rank them, the cells say noisy and
        // the heading says what to do (a busy CI machine shows the second).
        assertThat(r.out()).as(r.toString()).matches(o -> o.matches("(?s).*\\d\\.\\d\\dx.*")
                || o.contains(" noisy") && o.contains("ranks them"), "a ratio, or noisy cells with what to do");
        // The verdict is the paths' own (the fast path's accuracy is asserted in core); the main job must report it
        // faithfully: exit 0 exactly when it printed "[OK]", 1 with the failing checks listed, 3 when a check had
        // too few samples (INCONCLUSIVE, listed).
        String verdict = r.out().lines().filter(l -> l.startsWith("verify:")).findFirst().orElseThrow();
        int expected = verdict.contains("[FAILED]") ? 1 : verdict.contains("[INCONCLUSIVE]") ? 3 : 0;
        assertThat(r.exit()).as(r.toString()).isEqualTo(expected);
        assertThat(verdict).as(r.toString()).contains(expected == 0 ? "[OK]" : "");
        if (expected == 1) {
            assertThat(r.out()).contains("FAILED:");
        } else if (expected == 3) {
            assertThat(r.out()).contains("INCONCLUSIVE:");
        }
        // One screen: 50 lines with the table in two parts (80 columns each). Cells as noisy as a busy machine
        // makes them can need a third part, whose lines (a blank, the heading and a row per clock) are not counted.
        java.util.List<String> lines = r.out().lines().toList();
        long parts = lines.stream().filter(l -> l.startsWith("clock ")).count();
        long rows = lines.subList(lines.indexOf(lines.stream().filter(l -> l.startsWith("clock ")).findFirst()
                .orElseThrow()) + 1, lines.size()).stream().takeWhile(l -> !l.isBlank() && !l.startsWith(" ")).count();
        assertThat(lines.size() - Math.max(0, parts - 2) * (rows + 2)).as(r.toString()).isLessThanOrEqualTo(50);
        // The summary names every mode that ran, skew included.
        String verify = r.unfolded().lines().filter(l -> l.startsWith("verify:")).findFirst().orElseThrow();
        assertThat(verify).contains("consistency, causality, agreement, abi, skew)");
        // Measured, not promised: causality on the unordered paths is MEASURED, never OK nor SKIPPED, whatever
        // the figure (it flapped between OK and SKIPPED with the violations seen).
        assertThat(verify).doesNotContain("SKIPPED");
        if (r.out().contains("  fast-unordered ")) {
            assertThat(r.unfolded()).containsPattern("MEASURED: +causality on fast-unordered \\(\\d+ clocks?\\): (never "
                    + "reordered in|reordered in [\\d.]+% of) [\\d,]+ cross-thread checks \\(unordered reads: not promised\\)");
        }
    }

    /** Columns hold with the longest path name (fast-unordered): each line's entries start where the header's do. */
    @Test
    void thePathListAndTheTableStayAlignedAndEveryRowNamesItsBaseline() {
        Tk4jHarness r = Tk4jHarness.run("--budget", "1");
        java.util.List<String> lines = r.out().lines().toList();
        java.util.List<String> paths = lines.subList(lines.indexOf("paths here:") + 1, lines.size()).stream()
                .takeWhile(l -> l.startsWith("  ")).toList();
        assertThat(paths).as(r.out()).hasSizeGreaterThan(2);
        int description = paths.get(0).indexOf(' ', 2) + 1;
        while (paths.get(0).charAt(description) == ' ') {
            description++;
        }
        for (String l : paths) {
            assertThat(l.charAt(description - 1)).as("%s%n%s", l, r.out()).isEqualTo(' ');
            assertThat(l.charAt(description)).as("%s%n%s", l, r.out()).isNotEqualTo(' ');
        }
        // The table in parts (a header, then a row per clock), each within the width; the jdk column's cells
        // are the baselines' own ("base").
        java.util.List<Integer> heads = new java.util.ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            if (lines.get(i).startsWith("clock ")) {
                heads.add(i);
            }
        }
        assertThat(heads).as(r.out()).isNotEmpty();
        java.util.List<String> headings = new java.util.ArrayList<>();
        java.util.List<java.util.List<String>> clocksPerPart = new java.util.ArrayList<>();
        boolean sawBaseline = false;
        for (int h : heads) {
            String head = lines.get(h);
            java.util.List<String> rows = lines.subList(h + 1, lines.size()).stream()
                    .takeWhile(l -> !l.isBlank() && !l.startsWith(" ")).toList();
            assertThat(rows).as(r.out()).isNotEmpty();
            for (String l : lines.subList(h, h + 1 + rows.size())) {
                assertThat(l.length()).as("%s%n%s", l, r.out()).isLessThanOrEqualTo(Terminal.DEFAULT);
            }
            java.util.List<String> names = java.util.List.of(head.trim().split("\\s+"));
            headings.addAll(names.subList(1, names.size()));
            clocksPerPart.add(rows.stream().map(l -> l.split(" ")[0]).toList());
            // The baseline's own figures: the jdk column's cells say "base" where that call reads the clock.
            int jdk = (head + " ").indexOf("  jdk ") + 2;
            if (jdk > 1) {
                sawBaseline = true;
                assertThat(rows).as(r.out()).anyMatch(row -> row.substring(jdk).matches("[\\d.]+ base(\\s.*)?"));
            }
        }
        assertThat(sawBaseline).as(r.out()).isTrue();
        // Nothing lost in the wrapping: every part has every clock, and every column (each path here, the
        // resolution, baseline and verify) is in exactly one part.
        assertThat(clocksPerPart).as(r.out()).allSatisfy(c -> assertThat(c).isEqualTo(clocksPerPart.get(0)));
        java.util.List<String> expected = new java.util.ArrayList<>(java.util.List.of("res", "verify"));
        paths.stream().filter(l -> !l.contains("unavailable here:")).forEach(l -> expected.add(l.trim().split(" ")[0]));
        assertThat(headings).as(r.out()).containsExactlyInAnyOrderElementsOf(expected);
    }

    @Test
    void thePartsShouldFitTheWidthRepeatTheClockColumnAndKeepEveryOtherColumnOnceInOrder() {
        int[] width = {24, 4, 16, 16, 15, 16, 16, 16, 16, 18, 11, 19};
        java.util.List<int[]> parts = MainJob.parts(width, Terminal.DEFAULT);
        assertThat(parts).hasSizeGreaterThan(1);
        java.util.List<Integer> seen = new java.util.ArrayList<>();
        for (int[] part : parts) {
            assertThat(part[0]).isZero();
            assertThat(java.util.Arrays.stream(part).map(i -> width[i] + 2).sum() - 2).isLessThanOrEqualTo(Terminal.DEFAULT);
            java.util.Arrays.stream(part).skip(1).forEach(seen::add);
        }
        assertThat(seen).containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11);
        // A column wider than the limit still gets a part of its own.
        assertThat(MainJob.parts(new int[] {24, 200, 5}, Terminal.DEFAULT)).containsExactly(new int[] {0, 1}, new int[] {0, 2});
    }

    /** The words of the main job's figures: rates, not counts; a maxerror at a glance; descriptions shortened. */
    @Test
    void measuredFiguresAreRatesWithTheirMeaning() {
        assertThat(org.timekeeping4j.cli.verify.CausalityCheck.percent(284_089, 3_466_174)).isEqualTo("8.2%");
        assertThat(org.timekeeping4j.cli.verify.CausalityCheck.percent(34, 7_292_507)).isEqualTo("0.00047%");
        assertThat(org.timekeeping4j.cli.verify.CausalityCheck.percent(5, 5)).isEqualTo("100%");
        assertThat(org.timekeeping4j.cli.verify.CausalityCheck.reordered(284_089, 3_466_174)).isEqualTo(
                "reordered in 8.2% of 3,466,174 cross-thread checks (unordered reads: not promised)");
        assertThat(org.timekeeping4j.cli.verify.CausalityCheck.reordered(0, 1_000)).startsWith("never reordered in 1,000 cross-thread checks");
        assertThat(MainJob.micros(16_000_000)).isEqualTo("16 s");
        assertThat(MainJob.micros(12_500)).isEqualTo("12.5 ms");
        assertThat(MainJob.micros(250)).isEqualTo("250 us");
        assertThat(MainJob.summary("Clocks.nanos: the counter (else (the kernel's) clock_gettime)"))
                .isEqualTo("Clocks.nanos: the counter");
        assertThat(MainJob.summary("Clocks.ticks (unordered) converted")).isEqualTo("Clocks.ticks (unordered) converted");
    }

    @Test
    void noisyCellsShouldSayWhatToDoAndHowMuchLonger() {
        var quiet = new org.timekeeping4j.cli.bench.ReadBenchmark.CellResult(null, 20, 20, 30, 1000, "Clocks.nanos",
                "System.nanoTime", 25, 25, new double[] {0.80, 0.81, 0.82, 0.80, 0.81});
        var busy = new org.timekeeping4j.cli.bench.ReadBenchmark.CellResult(null, 20, 20, 30, 1000, "Clocks.nanos",
                "System.nanoTime", 25, 25, new double[] {0.60, 0.80, 1.00, 0.80, 0.80}); // spread 0.40 / 0.80: 50%
        assertThat(MainJob.noisyAdvice(java.util.List.of(quiet, quiet), null)).isNull();
        assertThat(MainJob.noisyAdvice(java.util.List.of(quiet, busy), "1.93/2 CPUs")).isEqualTo(
                "1 of 2 here, load 1.93/2 CPUs: ./tk4j bench --rounds 20 -t 2.0 ranks them");
        assertThat(MainJob.loadAverage()).matches("[0-9.]+/[0-9]+ CPUs");
    }
}
