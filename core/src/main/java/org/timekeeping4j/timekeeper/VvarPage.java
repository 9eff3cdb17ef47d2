package org.timekeeping4j.timekeeper;

import org.timekeeping4j.machine.SeqlockPage;

/**
 * A vvar page: a published timekeeper state in native memory, one record per high-resolution clock (REALTIME,
 * MONOTONIC, MONOTONIC_RAW, BOOTTIME, TAI), read by machine code. Every hardware timekeeper writes its own page
 * inside the same odd window as its ring slot. A timekeeper can also mirror its states into a page it does not
 * own ({@link Timekeeper#mirrorTo}): a process-wide page at a fixed address, as the kernel's vvar page is, lets
 * the process's fast clocks pass constant addresses to the machine code, with no load before the counter read,
 * and survive the timekeepers behind it being replaced.
 *
 * <p>An opaque handle: its address and its readers are this module's own (they take raw addresses), so the
 * API only allocates a page and hands it to {@link Timekeeper#mirrorTo}. Implemented by this library alone;
 * {@link Timekeeper#mirrorTo} refuses any other implementation.
 */
public interface VvarPage {

    /**
     * {@return a new page in the global arena (never freed), owned by no timekeeper: every record stale, so a
     * fresh read of it returns {@link Timekeeper#STALE} and a read that may extrapolate returns 0}
     */
    static VvarPage allocate() {
        return SeqlockPage.allocate();
    }
}
