package org.timekeeping4j.cli.path;

import java.util.List;
import java.util.Optional;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Clocks;
import org.timekeeping4j.KernelClocks;
import org.timekeeping4j.Snapshot;
import org.timekeeping4j.linux.LinuxTime;

/**
 * Every clock path verify and bench know, in display order.
 *
 * <p><b>Adding a path</b>: one {@link SimplePath} line in {@link #ALL}, for example
 * <pre>{@code
 * new SimplePath("fast", "Clocks.nanos: counter x mult >> shift in user space", ClockPaths::readable,
 *         c -> () -> Clocks.nanos(c), c -> 1_000L, c -> "Clocks.nanos"),
 * }</pre>
 * (name, description, which clocks it serves, the zero-allocation reader per clock, its agreement bound in ns
 * against the kernel, the call's name). Nothing else changes: {@code tk4j verify}, {@code tk4j bench}, the main
 * job, and the contract test {@code ClockPathContractTest} pick it up from this list.
 */
public final class ClockPaths {

    private ClockPaths() {}

    /**
     * The kernel reference that agreement brackets every path with: {@link KernelClocks#nanos(ClockId)} (libc
     * clock_gettime, served by the vDSO where the kernel can); bound 0, the reference itself.
     */
    public static final ClockPath KERNEL = new SimplePath("kernel",
            "KernelClocks.nanos: the vDSO's clock_gettime (libc's where the vDSO has none)",
            ClockPaths::readable, c -> () -> KernelClocks.nanos(c), c -> 0, c -> "KernelClocks.nanos")
            .withKernelResolution();

    /** The JDK's clocks: the baseline bench compares against. */
    public static final ClockPath JDK = new JdkPath(false);

    /**
     * Whether clock_gettime reads {@code c} now (false for disabled AUX clocks, alarm clocks without an RTC).
     *
     * @param c any clock
     * @return true when clock_gettime reads it now
     */
    public static boolean readable(ClockId c) {
        return LinuxTime.clockGettimeErrno(c.id()) == 0;
    }

    static boolean counterServed(ClockId c) {
        return Clocks.isCounterBacked(c) && ClockPaths.readable(c);
    }

    /**
     * How early an unordered counter read ({@code ticks}, {@code fast-unordered}) may be against a kernel read made
     * just before it: an unordered read may execute before the kernel read that precedes it in program order.
     */
    static final long UNORDERED_BOUND_NANOS = 100;

    /**
     * The ticks path needs counter cycles: on the kernel path ticks are MONOTONIC_RAW ns, converted to other
     * clocks through an offset measured at each conversion, which keeps neither the 100 ns bound nor the order of
     * one thread's reads.
     */
    static Optional<String> ticksUnavailable() {
        return Clocks.diagnostics().ticks().counterCycles() ? Optional.empty()
                : Optional.of("ticks: no trusted counter here, so ticks are MONOTONIC_RAW ns (see Clocks.ticksToNanos)");
    }

    static PathReader snapshotReader(ClockId c) {
        // One Snapshot per thread: readers are shared by verify's threads.
        ThreadLocal<Snapshot> snapshots = ThreadLocal.withInitial(Snapshot::new);
        return () -> {
            Snapshot s = snapshots.get();
            Clocks.snapshot(c, s);
            return s.nanos();
        };
    }

    /** Registration: one line per path. */
    private static final List<ClockPath> ALL = List.of(
            KERNEL,
            // syscall(SYS_clock_gettime), never the vDSO: the kernel's own timekeeper, read under its seqcount, on
            // the same time line as the vDSO (bound 0); clock_getres is the kernel's answer for the clock, whichever
            // way it is read afterwards.
            new SimplePath("syscall", "KernelClocks.syscallNanos: the system call, never the vDSO",
                    c -> LinuxTime.syscallClockGettimeErrno(c.id()) == 0, c -> () -> KernelClocks.syscallNanos(c), c -> 0,
                    c -> "KernelClocks.syscallNanos").withKernelResolution(),
            JDK,
            new JdkPath(true),
            // The user-space fast clocks: exact mode's reads are the kernel's values, and a clock that Clocks.nanos
            // serves from the kernel is the kernel's: both must agree exactly.
            new SimplePath("fast", "Clocks.nanos: the counter, exact with the kernel's vDSO data "
                    + "(else the kernel's clock_gettime)",
                    ClockPaths::readable, c -> () -> Clocks.nanos(c), c -> 0, c -> "Clocks.nanos"),
            // Unordered counter reads: ordered within a thread, not across threads (causality measured, not
            // promised), and up to UNORDERED_BOUND_NANOS early against the kernel.
            new SimplePath("ticks", "Clocks.ticks (an unordered counter read), then ticksToNanos",
                    ClockPaths::counterServed, c -> () -> Clocks.ticksToNanos(Clocks.ticks(), c),
                    c -> UNORDERED_BOUND_NANOS, c -> "Clocks.ticks+ticksToNanos")
                    .unorderedAcrossThreads().unavailableWhen(ClockPaths::ticksUnavailable),
            new SimplePath("fast-unordered", "Clocks.nanosUnordered: exact, an unordered counter read",
                    ClockPaths::counterServed, c -> () -> Clocks.nanosUnordered(c), c -> UNORDERED_BOUND_NANOS,
                    c -> "Clocks.nanosUnordered").unorderedAcrossThreads(),
            new SimplePath("snapshot", "Clocks.snapshot: one counter read, converted", ClockPaths::counterServed,
                    ClockPaths::snapshotReader, c -> 0, c -> "Clocks.snapshot"),
            // Test fixture: goes backwards on purpose; accepted by --path, never listed.
            new BrokenPath());

    /** Every registered path, hidden and unavailable ones included. */
    public static List<ClockPath> all() {
        return ALL;
    }

    /** The paths verify and bench run by default: visible and available on this machine. */
    public static List<ClockPath> available() {
        return ALL.stream().filter(p -> !p.hidden() && p.unavailableReason().isEmpty()).toList();
    }

    /** The path called {@code name}, if registered (available or not). */
    public static Optional<ClockPath> byName(String name) {
        return ALL.stream().filter(p -> p.name().equals(name)).findFirst();
    }

    /**
     * The path called {@code name}, ready to run.
     *
     * @throws IllegalArgumentException naming the known paths if {@code name} is unknown, or saying why the path
     *                                  is unavailable here
     */
    public static ClockPath require(String name) {
        ClockPath p = byName(name).orElseThrow(() -> new IllegalArgumentException("unknown path '" + name
                + "' (" + String.join(", ", ALL.stream().filter(x -> !x.hidden()).map(ClockPath::name).toList())
                + ")"));
        p.unavailableReason().ifPresent(why -> {
            throw new IllegalArgumentException(why);
        });
        return p;
    }

    /** The JDK read bench compares {@code clock} with: the JDK's own call for that clock, else System.nanoTime. */
    public static ClockId jdkBaselineClock(ClockId clock) {
        return JDK.serves(clock) ? clock : ClockId.MONOTONIC;
    }

    static void requireServed(ClockPath path, ClockId clock) {
        if (!path.serves(clock)) {
            throw new UnsupportedOperationException("path '" + path.name() + "' does not serve " + clock.kernelName()
                    + (path.unavailableReason().map(r -> ": " + r).orElse("")));
        }
    }
}
