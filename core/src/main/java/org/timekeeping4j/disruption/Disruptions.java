package org.timekeeping4j.disruption;

/**
 * The process's one note of clock disruptions (live migration, snapshot restore) that the library saw: the
 * {@code Clocks.ticks()} value read when it last saw one. A tick before it may come from a counter that has since
 * jumped or changed rate, so no conversion of it is exact ({@code serving.TicksConverter}, exact mode's snapshots).
 *
 * <p>The library sees a disruption when a {@code device.VmClock} it has open reads a disruption marker or VM
 * generation other than the one it last read: without a thread of ours, so only as often as something reads the
 * page. The fence is conservative: it lies after the disruption itself, so ticks taken between the two are flagged
 * too, never the reverse.
 *
 * <p>Not exported: the device package writes it, the root package reads it. Thread-safe.
 */
public final class Disruptions {

    private static final long NONE = Long.MIN_VALUE;

    /**
     * The ticks at the latest disruption seen, or NONE. Volatile: a converter on another thread that reads it after
     * the disruption was noted sees the fence (and nothing else needs ordering with it).
     */
    private static volatile long fence = NONE;
    private static volatile long seen;

    private Disruptions() {}

    /**
     * Notes a disruption seen now; the fence only moves forward.
     *
     * @param ticksNow {@code Clocks.ticks()} read after the disruption was seen
     */
    public static synchronized void seen(long ticksNow) {
        if (fence == NONE || ticksNow > fence) {
            fence = ticksNow;
        }
        seen++;
    }

    /**
     * Whether a tick was taken before the latest disruption the library saw.
     *
     * @param ticks a {@code Clocks.ticks()} value
     * @return true when a disruption was seen after it: its conversion is not exact
     */
    public static boolean before(long ticks) {
        long f = fence;
        return f != NONE && ticks < f;
    }

    /** {@return how many disruptions the library has seen in this process} */
    public static long count() {
        return seen;
    }
}
