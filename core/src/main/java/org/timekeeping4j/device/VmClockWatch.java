package org.timekeeping4j.device;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.timekeeping4j.device.VmClockLayout.HEADER_END;
import static org.timekeeping4j.device.VmClockLayout.OFF_FLAGS;
import static org.timekeeping4j.device.VmClockLayout.OFF_MARKER;
import static org.timekeeping4j.device.VmClockLayout.OFF_SEQ;
import static org.timekeeping4j.device.VmClockLayout.OFF_VM_GENERATION;

import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.timekeeping4j.linux.Seqcount;

/**
 * The VMClock page as {@link ServedBounds} watches it: its disruption marker and VM generation (a change is a
 * disruption: migration, snapshot restore, QEMU's {@code loadvm}) and its DISRUPTION_SOON / DISRUPTION_IMMINENT
 * flags ({@link TimeBounds.Disruption}). A read ({@link #look}) is one seqlocked copy of three fields: no system
 * call, no allocation. The refresher reads the whole page ({@link #moved}) and keeps what it last saw.
 */
final class VmClockWatch {

    /** {@link #look}'s bit: the page shows another marker or generation than the one given. */
    static final int MOVED = 4;
    /** {@link #look}'s bits holding the expectation's ordinal. */
    static final int EXPECTATION = 3;
    /** How often {@link #await} looks at the page, ms (the page offers no wakeup without notifications). */
    static final int WAIT_POLL_MILLIS = 5;

    private static final TimeBounds.Disruption[] DISRUPTIONS = TimeBounds.Disruption.values();

    private final VmClock clock;
    private final MemorySegment page;
    /** Whether the page reaches vm_generation_counter. */
    private final boolean generations;
    /** The marker and generation the refresher last saw; refresher's own. */
    private long lastMarker;
    private long lastGeneration;
    private boolean seen;

    VmClockWatch(VmClock clock) {
        this.clock = clock;
        this.page = clock.segment();
        this.generations = clock.size() >= HEADER_END;
    }

    /**
     * The page at {@code path} where it exists and opens, else null with why appended to {@code note} (no page is
     * the common case: a bare-metal host, a hypervisor without VMClock, a kernel before 6.13, a root-only device).
     */
    static VmClockWatch open(Path path, StringBuilder note) {
        if (!Files.exists(path)) {
            note.append("no VMClock page at ").append(path);
            return null;
        }
        try {
            VmClockWatch w = new VmClockWatch(VmClock.open(path));
            note.append("watching the VMClock page ").append(path);
            return w;
        } catch (DeviceException | RuntimeException e) {
            note.append("the VMClock page is not watched: ").append(e.getMessage());
            return null;
        }
    }

    /** {@return the expectation's ordinal that {@code flags} state: IMMINENT over SOON over NONE} */
    static int expectation(long flags) {
        return (flags & VmClock.FLAG_DISRUPTION_IMMINENT) != 0 ? 2 : (flags & VmClock.FLAG_DISRUPTION_SOON) != 0 ? 1 : 0;
    }

    static TimeBounds.Disruption disruption(int ordinal) {
        return DISRUPTIONS[ordinal];
    }

    /** {@return the page watched} */
    VmClock clock() {
        return clock;
    }

    /** {@return the page's path} */
    Path path() {
        return clock.path();
    }

    /**
     * One seqlocked read of the marker, flags and generation: the expectation's ordinal, plus {@link #MOVED} where
     * the marker or generation differ from those given. Allocates nothing.
     *
     * @throws IllegalStateException when seq_count never settles (as {@link VmClock}'s reads)
     */
    int look(long marker, long generation) {
        MemorySegment s = page;
        long giveUpAt = 0;
        for (int attempt = 0; ; attempt++) {
            giveUpAt = Seqcount.pace(attempt, giveUpAt);
            if (giveUpAt == Seqcount.GIVE_UP) {
                throw new IllegalStateException(clock.path() + ": VMClock seq_count "
                        + Seqcount.notSettled(attempt, Integer.toUnsignedLong(Seqcount.begin(s, OFF_SEQ))));
            }
            int seq = Seqcount.begin(s, OFF_SEQ); // acquire: pairs with the hypervisor's write_seqcount_end
            if (Seqcount.writing(seq)) {
                Thread.onSpinWait();
                continue;
            }
            long m = s.get(JAVA_LONG, OFF_MARKER);
            long flags = s.get(JAVA_LONG, OFF_FLAGS);
            long g = generations ? s.get(JAVA_LONG, OFF_VM_GENERATION) : 0;
            if (Seqcount.retry(s, OFF_SEQ, seq)) { // acquire fence: pairs with the hypervisor's write_seqcount_begin
                Thread.onSpinWait();
                continue;
            }
            if ((flags & VmClock.FLAG_VM_GEN_COUNTER_PRESENT) == 0) {
                g = 0;
            }
            return expectation(flags) | (m != marker || g != generation ? MOVED : 0);
        }
    }

    /**
     * The refresher's look: reads the page (through {@link VmClock#page()}, which notes a disruption for the
     * process as every VmClock read does) and tells whether its marker or generation moved since the last call
     * (never at the first). Refresher's own.
     */
    boolean moved() {
        VmClockPage p = clock.page();
        long m = p.disruptionMarker();
        long g = p.vmGenerationCounter();
        boolean moved = seen && (m != lastMarker || g != lastGeneration);
        lastMarker = m;
        lastGeneration = g;
        seen = true;
        return moved;
    }

    /** {@return the marker {@link #moved} last saw} */
    long marker() {
        return lastMarker;
    }

    /** {@return the generation {@link #moved} last saw} */
    long generation() {
        return lastGeneration;
    }

    /**
     * Waits until the page's expectation differs from {@code seen}, looking every {@link #WAIT_POLL_MILLIS} ms;
     * returns it then, or at the timeout. Any number of threads may wait.
     */
    TimeBounds.Disruption await(TimeBounds.Disruption seen, Duration timeout) throws InterruptedException {
        long wait;
        try {
            wait = Math.max(0, Math.min(timeout.toNanos(), Long.MAX_VALUE / 4));
        } catch (ArithmeticException e) {
            wait = Long.MAX_VALUE / 4; // centuries
        }
        long deadline = System.nanoTime() + wait;
        while (true) {
            TimeBounds.Disruption now = DISRUPTIONS[look(0, 0) & EXPECTATION];
            if (now != seen || System.nanoTime() - deadline >= 0) {
                return now;
            }
            Thread.sleep(WAIT_POLL_MILLIS); // polls: the page notifies only through the device's poll (Linux 7.0+)
        }
    }
}
