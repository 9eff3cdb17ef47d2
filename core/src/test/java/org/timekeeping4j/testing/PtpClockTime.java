package org.timekeeping4j.testing;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.MemorySegment;

/**
 * struct ptp_clock_time {s64 sec; u32 nsec; u32 reserved} (linux/ptp_clock.h), written as the kernel does into an
 * ioctl's answer: the simulated kernels of core's and the CLI's tests share it, its offsets spelled out here
 * independently of the library's layouts.
 */
public final class PtpClockTime {

    private PtpClockTime() {}

    /**
     * Writes {@code nanos} as a struct ptp_clock_time at {@code offset} of {@code answer}.
     *
     * @param answer the ioctl's argument
     * @param offset the struct's offset in it, bytes
     * @param nanos  the time, ns (negative times: seconds floored, nsec in 0..999,999,999)
     */
    public static void write(MemorySegment answer, long offset, long nanos) {
        answer.set(JAVA_LONG, offset, Math.floorDiv(nanos, 1_000_000_000L));
        answer.set(JAVA_INT, offset + 8, (int) Math.floorMod(nanos, 1_000_000_000L));
        answer.set(JAVA_INT, offset + 12, 0);
    }
}
