package org.timekeeping4j.machine;

import org.timekeeping4j.arch.Arch;
import org.timekeeping4j.arch.CounterRead;
import org.timekeeping4j.linux.KernelInfo;

/**
 * A whole timekeeper read in machine code: ordered counter read, sequence, conversion and validation in one
 * downcall, over a page of published parameters (the vDSO's do_hres over its vvar page). A read through it
 * costs the bare counter read plus a 128-bit multiply and an add; the same read in Java
 * pays for each field's load and check after the downcall returns (docs/PERFORMANCE.md). The code and its
 * memory-ordering argument: {@link MachineCode#x86SeqlockRead}.
 *
 * <h2>Page layout (native, little-endian, 64-byte aligned)</h2>
 * <pre>
 *   page +  0   seq             odd while the writer is inside its window
 *   page +  8   shift           of every record's mult
 *   record (128 bytes each; the timekeeper puts one per clock after a 64-byte header):
 *   first cache line, all the fast path reads (E = cycle_last's high 32 bits, hi = the counter's):
 *        +  0   cycle_last      counter value of the last update (E is its high half, at +4)
 *        +  8   mult'           mult * 2^(64 - shift)
 *        + 16   k0 (low word)   k + E * 2^32 * mult', where k = (base + offset) * 2^64 + xtime * 2^(64 - shift)
 *        + 24   k0 (high word)      - cycle_last * mult' (128 bits, modulo 2^128)
 *        + 32   fresh limit     deltas below it (unsigned) take the fast path, for a fresh read
 *        + 40   any limit       the same for a read that may extrapolate
 *        + 48   k1 (low word)   k + (E + 1) * 2^32 * mult'
 *        + 56   k1 (high word)
 *   second line, for the slow path:
 *        + 64   valid cycles    deltas beyond this (unsigned) are stale for a fresh read
 *        + 72   base            the line's value at cycle_last, ns
 *        + 80   offset          added to the line's value (REALTIME - MONOTONIC, ...)
 *        + 88   leap threshold  line value from which the leap step applies (Long.MAX_VALUE: none)
 *        + 96   leap step       ns
 *        +104   mult
 *        +112   xtime           sub-ns remainder, shifted
 * </pre>
 * Either path returns {@code base + ((xtime + delta * mult) >>> shift) + offset}, plus the leap step from
 * the threshold on, with {@code delta = now - cycle_last} on a 64-bit counter (the TSC: no mask), clamped
 * to 0 for a counter value before cycle_last, the product on 128 bits; a fresh read of a delta beyond the
 * valid cycles returns {@link #STALE}. The fast path (the high word of {@code lo * mult' + k_hi}, for the
 * counter's low and high halves lo and hi, which equals that of {@code now * mult' + k}) is taken below the
 * limit the writer proved it exact for, which also keeps hi within E, E + 1.
 *
 * <p>x86_64 only (rdtscp or lfence;rdtsc); elsewhere {@code Clocksource.seqlockReader()} is null and the
 * timekeeper reads in Java.
 *
 * <p>The entry points take raw addresses and do not check them: a wrong one reads whatever lies there, or
 * faults. That is why this class lives in the unexported machine package: only this module calls it, with
 * the addresses of pages it allocated ({@link SeqlockPage}). The exported
 * {@code org.timekeeping4j.clocksource.SeqlockReader} only names the counter read.
 */
public final class SeqlockStub {

    /** Page offset of the sequence (64-bit): odd while the writer is inside its window, else even. */
    public static final long SEQ = 0;
    /** Page offset of the shift (read as 32 bits, stored as 64) every record's mult is scaled by. */
    public static final long SHIFT = 8;
    /** Bytes before the first record: seq, shift, and padding to the next 64-byte line. */
    public static final long HEADER_BYTES = 64;
    /** Bytes per record, two cache lines: the fast path's fields, then the slow path's. */
    public static final long RECORD_BYTES = 128;
    /**
     * Records per page: one per clock a counter read serves ({@code timekeeper.CounterClock}: REALTIME, MONOTONIC,
     * MONOTONIC_RAW, BOOTTIME, TAI), at index {@code CounterClock.record()}; CounterClockTest holds the two equal.
     */
    public static final int RECORDS = 5;
    /** Record offset of cycle_last: the counter value of the last update (E, its high half, at +4). */
    public static final long CYCLE_LAST = 0;
    /** Record offset of mult' = mult * 2^(64 - shift); 0 when it does not fit 64 bits (no fast path). */
    public static final long MULT_WIDE = 8;
    /**
     * Record offset of k0, the fast path's 128-bit constant for a counter high half of E: a low word, then a
     * high word 8 bytes further (as for {@link #K1}).
     */
    public static final long K0 = 16;
    /** Record offset of the fresh limit: deltas below it (unsigned) take the fast path of a {@link #FRESH} read. */
    public static final long FRESH_LIMIT = 32;
    /** Record offset of the any limit: deltas below it (unsigned) take the fast path of an {@link #ANY} read. */
    public static final long ANY_LIMIT = 40;
    /** Record offset of k1, the fast path's constant for a counter high half of E + 1 (low word, then high). */
    public static final long K1 = 48;
    /** Record offset of the valid cycles: a {@link #FRESH} read of a larger delta (unsigned) is {@link #STALE}. */
    public static final long VALID_CYCLES = 64;
    /** Record offset of base: the line's value at cycle_last, ns. */
    public static final long BASE = 72;
    /** Record offset of the offset added to the line's value (REALTIME - MONOTONIC, ...), ns. */
    public static final long OFFSET = 80;
    /**
     * Record offset of the leap threshold: the line's value (signed, before the offset) from which the leap
     * step is added; Long.MAX_VALUE for none.
     */
    public static final long LEAP_THRESHOLD = 88;
    /** Record offset of the leap step, ns (-10^9 for an inserted second, +10^9 for a deleted one, else 0). */
    public static final long LEAP_STEP = 96;
    /** Record offset of the line's mult (0 while the timekeeper is suspended: the line stands still). */
    public static final long MULT = 104;
    /** Record offset of xtime: the line's sub-ns remainder at cycle_last, in units of 2^-shift ns. */
    public static final long XTIME = 112;

    /** {@link #readPreferred}'s last argument: honour the record's validity (the fresh limit). */
    public static final long FRESH = 0;
    /** {@link #readPreferred}'s last argument: extrapolate however far (the any limit). */
    public static final long ANY = ANY_LIMIT - FRESH_LIMIT;

    /** What a fresh read of a stale record returns: Long.MIN_VALUE. */
    public static final long STALE = Long.MIN_VALUE;


    /**
     * Whether the process's machine-code reads use lfence;rdtsc (else rdtscp): the first ordered x86 flavour in
     * the selection's order (arch.Arch.reads: lfence;rdtsc where the kernel says lfence orders rdtsc, else
     * rdtscp where the CPU has it, else lfence;rdtsc) whose stub maps. Every timekeeper's page is read through
     * the same code: any ordered TSC read serves any page. A constant, so that the choice costs a read nothing
     * (a per-timekeeper choice was a load and a branch before the counter).
     */
    public static final boolean PREFERRED_LFENCE = preferredLfence();
    /** Whether a seqlock stub maps at all here (x86_64, executable memory allowed). */
    public static final boolean AVAILABLE = PREFERRED_LFENCE ? Stubs.LfenceRdtscSeqlock.MAPPED.ok()
            : Stubs.RdtscpSeqlock.MAPPED.ok();

    private SeqlockStub() {}

    private static boolean preferredLfence() {
        if (Arch.HERE != Arch.X86_64) { // the machine code is x86_64's (MachineCode.x86SeqlockRead)
            return false;
        }
        for (CounterRead f : Arch.X86_64.reads(true, KernelInfo.cpuFlags(), 0)) {
            if (f == CounterRead.X86_RDTSCP ? Stubs.RdtscpSeqlock.MAPPED.ok()
                    : Stubs.LfenceRdtscSeqlock.MAPPED.ok()) {
                return f != CounterRead.X86_RDTSCP;
            }
        }
        return false;
    }

    /**
     * Reads, through the process's preferred ordered counter read (see {@link #PREFERRED_LFENCE}), the clock of
     * the record at address {@code record}, validated by the seq at address {@code page}.
     * Both must stay mapped for the call (the timekeeper's page lives in the global arena). Spins while the
     * page's writer is inside its window; never blocks otherwise. The addresses are not checked: a wrong one
     * reads whatever lies there, or faults.
     *
     * @param page   the address of the page (its seq and shift), 64-byte aligned
     * @param record the address of the clock's record in that page
     *               ({@code page + HEADER_BYTES + i * RECORD_BYTES})
     * @param limit  {@link #FRESH} (a stale record gives {@link #STALE}) or {@link #ANY}; not checked (it is
     *               the byte offset of the limit the stub compares with, from {@link #FRESH_LIMIT})
     * @return the record's clock in ns: {@code base + ((xtime + delta * mult) >>> shift) + offset}, plus the
     *         leap step from the threshold on (a REALTIME or TAI record: ns since the epoch); {@link #STALE}
     *         for a {@link #FRESH} read of a delta beyond the valid cycles (so for every record of a page not
     *         yet published into: its valid cycles are 0)
     */
    public static long readPreferred(long page, long record, long limit) {
        return PREFERRED_LFENCE ? readLfenceRdtsc(page, record, limit) : readRdtscp(page, record, limit);
    }

    private static IllegalStateException unavailable(Stubs.Mapped m) {
        return new IllegalStateException("the seqlock read stub is unavailable: " + m.failure()
                + "; read through it only where SeqlockReader.preferredReader() is not null");
    }

    /**
     * {@link #readPreferred} through the rdtscp code, whichever reader a caller holds (both read the same counter).
     *
     * @param page   the address of the page
     * @param record the address of the clock's record in that page
     * @param limit  {@link #FRESH} or {@link #ANY}
     * @return as {@link #readPreferred}: the clock in ns, or {@link #STALE}
     * @throws IllegalStateException where the rdtscp stub did not map, naming why
     */
    public static long readRdtscp(long page, long record, long limit) {
        if (Stubs.RdtscpSeqlock.HANDLE == null) { // a static final: the JIT folds the test away
            throw unavailable(Stubs.RdtscpSeqlock.MAPPED);
        }
        try {
            return (long) Stubs.RdtscpSeqlock.HANDLE.invokeExact(page, record, limit);
        } catch (Throwable t) {
            throw Stubs.rethrow(t);
        }
    }

    /**
     * {@link #readPreferred} through the lfence;rdtsc code; only where the CPU orders rdtsc after lfence.
     *
     * @param page   the address of the page
     * @param record the address of the clock's record in that page
     * @param limit  {@link #FRESH} or {@link #ANY}
     * @return as {@link #readPreferred}: the clock in ns, or {@link #STALE}
     * @throws IllegalStateException where the lfence;rdtsc stub did not map, naming why
     */
    public static long readLfenceRdtsc(long page, long record, long limit) {
        if (Stubs.LfenceRdtscSeqlock.HANDLE == null) { // a static final: the JIT folds the test away
            throw unavailable(Stubs.LfenceRdtscSeqlock.MAPPED);
        }
        try {
            return (long) Stubs.LfenceRdtscSeqlock.HANDLE.invokeExact(page, record, limit);
        } catch (Throwable t) {
            throw Stubs.rethrow(t);
        }
    }
}
