package org.timekeeping4j.clocksource;

import org.timekeeping4j.machine.SeqlockStub;
import org.timekeeping4j.machine.Stubs;

/**
 * That a counter's timekeeper can read in machine code: the ordered counter read, the sequence, the conversion
 * and the validation in one downcall, over a page of published parameters (the vDSO's do_hres over its vvar
 * page). What it costs and why is in docs/PERFORMANCE.md.
 *
 * <p>Only a name for the read here: the code and its entry points, which take raw addresses, are this module's
 * own and not part of the API.
 *
 * <p>x86_64 only (rdtscp or lfence;rdtsc); elsewhere {@link Clocksource#seqlockReader()} is null and the
 * timekeeper reads in Java.
 */
public final class SeqlockReader {

    private static final SeqlockReader RDTSCP = new SeqlockReader(false);
    private static final SeqlockReader LFENCE_RDTSC = new SeqlockReader(true);

    /** The reader every machine-code read in this process goes through, or null where no x86 stub maps. */
    private static final SeqlockReader PREFERRED = !SeqlockStub.AVAILABLE ? null
            : SeqlockStub.PREFERRED_LFENCE ? LFENCE_RDTSC : RDTSCP;

    private final boolean lfence;

    private SeqlockReader(boolean lfence) {
        this.lfence = lfence;
    }

    /**
     * {@return the reader every machine-code read in this process goes through (lfence;rdtsc or rdtscp, see
     * {@link #instructions()}), or null where no x86 stub maps (another architecture, refused memory)}
     */
    public static SeqlockReader preferredReader() {
        return PREFERRED;
    }

    /** The reader for rdtscp, or null where its stub did not map (another architecture, refused memory). */
    static SeqlockReader rdtscp() {
        return Stubs.RdtscpSeqlock.MAPPED.ok() ? RDTSCP : null;
    }

    /** The reader for lfence;rdtsc, or null. */
    static SeqlockReader lfenceRdtsc() {
        return Stubs.LfenceRdtscSeqlock.MAPPED.ok() ? LFENCE_RDTSC : null;
    }

    /** {@return the ordered counter read the machine code is built around: "lfence;rdtsc" or "rdtscp"} */
    public String instructions() {
        return lfence ? "lfence;rdtsc" : "rdtscp";
    }
}
