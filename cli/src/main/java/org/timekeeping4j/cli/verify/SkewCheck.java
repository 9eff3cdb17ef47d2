package org.timekeeping4j.cli.verify;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.simulation.SimulatedTimekeeper;
import org.timekeeping4j.simulation.SteeredTimekeeper;

/**
 * {@code verify skew}: the kernel's skew_consistency in user space. A writer thread flips the simulated
 * timekeeper's frequency between +ppm and -ppm every flip period while the consistency check runs on each of its
 * clocks: a frequency change that is not made continuous shows up as a clock going backwards (the 2025 COARSE bug).
 * The timekeeper checked is {@link SteeredTimekeeper}, timekeeping4j's own over a simulated counter.
 */
public final class SkewCheck {

    // The timekeeper under check: written only by tests (substitute), read when a check starts.
    private static volatile Supplier<? extends SimulatedTimekeeper> subject = SteeredTimekeeper::new;

    private SkewCheck() {}

    /**
     * Makes {@code verify skew} check the timekeepers {@code standIn} creates until the returned handle is closed
     * (the tests' own timekeepers, continuous and not). One substitution at a time.
     */
    public static Substitution substitute(Supplier<? extends SimulatedTimekeeper> standIn) {
        subject = standIn;
        return () -> subject = SteeredTimekeeper::new;
    }

    /** Ends a {@link #substitute substitution}: {@link SteeredTimekeeper} is checked again. */
    public interface Substitution extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * Checks, before any run, that the timekeeper serves every clock in {@code clocks}.
     *
     * @throws IllegalArgumentException naming the clocks it serves
     */
    public static void checkServed(List<ClockId> clocks) {
        if (clocks.isEmpty()) {
            return;
        }
        try (SimulatedTimekeeper tk = subject.get()) {
            for (ClockId c : clocks) {
                if (!tk.clocks().contains(c)) {
                    throw new IllegalArgumentException("skew's simulated timekeeper has no " + c.kernelName()
                            + " (" + String.join(", ", tk.clocks().stream().map(ClockId::name).toList()) + ")");
                }
            }
        }
    }

    /**
     * Runs the check for {@code nanos} in all, split across the timekeeper's clocks (or {@code clocks} where given).
     */
    public static List<CheckResult> run(List<ClockId> clocks, long nanos, int threads, long flipNanos, long ppb,
                                        long minReads, Progress progress) {
        List<CheckResult> results = new ArrayList<>();
        try (SimulatedTimekeeper tk = subject.get()) {
            List<ClockId> targets = clocks.isEmpty() ? tk.clocks()
                    : clocks.stream().distinct().filter(tk.clocks()::contains).toList();
            if (targets.isEmpty()) {
                throw new IllegalArgumentException("the simulated timekeeper '" + tk.name() + "' serves none of "
                        + clocks + " (it serves " + tk.clocks() + ")");
            }
            long perClock = Math.max(10_000_000L, nanos / targets.size());
            for (ClockId c : targets) {
                progress.doing("skew " + tk.name() + " " + c.kernelName());
                Flipper flipper = new Flipper(tk, flipNanos, ppb);
                Thread writer = Thread.ofPlatform().name("tk4j-skew-writer").daemon().start(flipper);
                CheckResult r;
                try {
                    r = ConsistencyCheck.run("skew", tk.name() + " " + c.kernelName(), () -> tk.readNanos(c),
                            perClock, threads, minReads);
                } finally {
                    flipper.stop = true;
                    try {
                        writer.join();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                }
                Map<String, Object> metrics = new LinkedHashMap<>(r.metrics());
                metrics.put("frequencyFlips", flipper.flips);
                metrics.put("flipPpb", ppb);
                results.add(new CheckResult(r.mode(), r.subject(), r.status(),
                        r.summary() + String.format(", %d frequency flips of +/-%d ppm", flipper.flips, ppb / 1000),
                        metrics, r.details()));
            }
        }
        return results;
    }

    /** The single writer: +ppb, -ppb, +ppb, ... every flip period; back to 0 when stopped. */
    private static final class Flipper implements Runnable {
        private final SimulatedTimekeeper tk;
        private final long flipNanos;
        private final long ppb;
        // Set by the coordinator, polled by the writer between flips.
        volatile boolean stop;
        // Written by the writer, read by the coordinator after join().
        long flips;

        Flipper(SimulatedTimekeeper tk, long flipNanos, long ppb) {
            this.tk = tk;
            this.flipNanos = flipNanos;
            this.ppb = ppb;
        }

        @Override
        public void run() {
            long sign = 1;
            while (!stop) {
                tk.adjustFrequencyPpb(sign * ppb);
                flips++;
                sign = -sign;
                java.util.concurrent.locks.LockSupport.parkNanos(flipNanos);
            }
            tk.adjustFrequencyPpb(0);
        }
    }
}
