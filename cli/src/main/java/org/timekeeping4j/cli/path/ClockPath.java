package org.timekeeping4j.cli.path;

import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.timekeeping4j.ClockId;

/**
 * One way of reading the clocks: the kernel through libc (the vDSO), the forced system call, the JDK's own
 * clocks, and the user-space fast clocks. verify and bench treat every path alike through this interface;
 * {@link ClockPaths} lists them.
 *
 * <h2>Assumptions and Guarantees</h2>
 * <ul>
 *   <li>{@link #reader} is called once per (path, clock) outside any measured loop; the returned reader is the
 *       hot path and must not allocate.</li>
 *   <li>A path serves a clock only if it reads the same time line as the kernel's clock of that id (the
 *       {@code agreement} check holds it to {@link #agreementBoundNanos}).</li>
 * </ul>
 */
public interface ClockPath {

    /** The name users type after {@code --path}, e.g. {@code kernel}. */
    String name();

    /** One line saying what this path calls. */
    String description();

    /** Why this path cannot run on this machine or JVM now, or empty where it can. */
    default Optional<String> unavailableReason() {
        return Optional.empty();
    }

    /** Whether this path can read the clock now (false for clocks the kernel refuses here). */
    boolean serves(ClockId clock);

    /** The clocks this path can read now, in id order. */
    default List<ClockId> clocks() {
        return java.util.Arrays.stream(ClockId.values()).filter(this::serves).toList();
    }

    /**
     * The zero-allocation reader of {@code clock} through this path.
     *
     * @throws UnsupportedOperationException if this path does not serve the clock, saying why
     */
    PathReader reader(ClockId clock);

    /**
     * How far (ns) a read may fall outside the bracket of the kernel reads taken just before and just after it:
     * 0 for paths that read the kernel's own timekeeper, the resolution lost for truncating paths, the
     * documented error for paths that extrapolate in user space.
     */
    long agreementBoundNanos(ClockId clock);

    /** The resolution this path reports for the clock (its clock_getres), or empty if the path has no such notion. */
    default OptionalLong resolutionNanos(ClockId clock) {
        return OptionalLong.empty();
    }

    /**
     * Whether a read through this path is ordered after the reads before it in program order, so that a
     * value another thread published and this thread saw is never later than this thread's next read
     * (what {@code verify causality} checks). False for unordered counter reads ({@code ticks}), whose
     * documentation promises no cross-thread order: causality is then measured and reported, not failed.
     */
    default boolean orderedAcrossThreads() {
        return true;
    }

    /** Hidden paths (test fixtures such as {@code broken}) are accepted by {@code --path} but never listed or run by default. */
    default boolean hidden() {
        return false;
    }

    /**
     * A short label for the call behind {@code clock} on this path, e.g. {@code System.nanoTime}; defaults to the
     * path's name.
     */
    default String callName(ClockId clock) {
        return name();
    }
}
