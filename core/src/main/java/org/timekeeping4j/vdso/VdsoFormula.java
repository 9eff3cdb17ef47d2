package org.timekeeping4j.vdso;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import org.timekeeping4j.arch.VdsoAlgorithm;
import org.timekeeping4j.clocksource.MultShift;
import org.timekeeping4j.linux.Seqcount;
import org.timekeeping4j.machine.VclockCode;
import org.timekeeping4j.machine.VdsoStub;
import org.timekeeping4j.timekeeper.CounterClock;

/**
 * The vDSO's arithmetic in Java (lib/vdso/gettimeofday.c vdso_calc_ns and the x86 forms), for conversions
 * of counter values read earlier: snapshots, {@code Clocks.ticksToNanos}, event export. Clock reads go
 * through the machine code of the layout's {@link VdsoAlgorithm} (machine.VdsoStub.map), which computes the
 * same thing around its own counter read.
 */
final class VdsoFormula {

    /** The seq of a base: a 32-bit load at the base's start. */

    private static final long S64_MAX = Long.MAX_VALUE;

    private VdsoFormula() {}

    /**
     * calc_ns: nanoseconds since the base's basetime.sec at {@code cycles}, shifted out, u64, for the
     * layout's algorithm (before the seconds are added).
     */
    static long ns(VdsoLayout layout, long cycles, long cycleLast, long maxCycles, long mask, long mult, int shift,
            long base) {
        return switch (layout.algorithm()) {
            case X86_OVERFLOW -> {
                long delta = (cycles & S64_MAX) - cycleLast;
                if (Long.compareUnsigned(delta, maxCycles) > 0) {
                    if ((delta & (1L << 62)) != 0) {
                        yield base >>> shift;
                    }
                    yield MultShift.wide(delta & S64_MAX, mult, shift, base); // mul_u64_u32_add_u64_shr
                }
                yield (delta * mult + base) >>> shift;
            }
            case X86_LEGACY -> {
                long delta = Long.compareUnsigned(cycles, cycleLast) > 0 ? (cycles - cycleLast) * mult : 0;
                yield (base + delta) >>> shift;
            }
            case ARM64_GENERIC -> (((cycles - cycleLast) & mask) * mult + base) >>> shift;
        };
    }

    /**
     * vread_pvclock at TSC value {@code tsc} (read earlier) under the page's version: the pvclock "cycles"
     * (ns since the host's reference) with bit 63 clear; with bit 63 set when the TSC value lies before the
     * page's tsc_timestamp (extrapolated backwards: not what the vDSO computes, flagged by the sign); or
     * {@link Long#MIN_VALUE} when the stable bit is clear or the version never settles.
     */
    static long pvclock(MemorySegment pvti, long tsc) {
        for (int spins = 0; spins < 1 << 20; spins++) {
            // pvclock_read_begin: pairs with the hypervisor's write barrier after its version increment.
            int version = Seqcount.begin(pvti, VclockCode.PV_VERSION);
            if (Seqcount.writing(version)) {
                Thread.onSpinWait();
                continue;
            }
            byte flags = pvti.get(ValueLayout.JAVA_BYTE, VclockCode.PV_FLAGS);
            if ((flags & VclockCode.PVCLOCK_TSC_STABLE_BIT) == 0) {
                return Long.MIN_VALUE;
            }
            long tscTimestamp = pvti.get(ValueLayout.JAVA_LONG_UNALIGNED, VclockCode.PV_TSC_TIMESTAMP);
            long systemTime = pvti.get(ValueLayout.JAVA_LONG_UNALIGNED, VclockCode.PV_SYSTEM_TIME);
            long mul = Integer.toUnsignedLong(pvti.get(ValueLayout.JAVA_INT_UNALIGNED, VclockCode.PV_MUL));
            int shift = pvti.get(ValueLayout.JAVA_BYTE, VclockCode.PV_SHIFT);
            if (Seqcount.retry(pvti, VclockCode.PV_VERSION, version)) { // pvclock_read_retry
                Thread.onSpinWait();
                continue;
            }
            long v = pvclockLine(tsc, tscTimestamp, systemTime, mul, shift);
            return tsc - tscTimestamp < 0 ? v | Long.MIN_VALUE : v;
        }
        return Long.MIN_VALUE;
    }

    /**
     * __pvclock_read_cycles: the pvclock page's line (tsc_timestamp, system_time, tsc_to_system_mul, tsc_shift) at
     * TSC value {@code tsc}; before tsc_timestamp, the line backwards (what the vDSO never computes).
     */
    static long pvclockLine(long tsc, long tscTimestamp, long systemTime, long mul, int shift) {
        long delta = tsc - tscTimestamp;
        boolean behind = delta < 0;
        long d = behind ? -delta : delta;
        d = shift >= 0 ? d << shift : d >>> -shift;
        long scaled = (Math.unsignedMultiplyHigh(d, mul) << 32) | ((d * mul) >>> 32);
        return behind ? systemTime - scaled : systemTime + scaled;
    }

    /**
     * TSC ticks per pvclock nanosecond under the page's version: 2^32 / (tsc_to_system_mul * 2^tsc_shift), the
     * inverse of vread_pvclock's scale; 0 when the stable bit is clear or the version never settles.
     */
    static double pvclockTicksPerNano(MemorySegment pvti) {
        for (int spins = 0; spins < 1 << 20; spins++) {
            int version = Seqcount.begin(pvti, VclockCode.PV_VERSION); // as in pvclock()
            if (Seqcount.writing(version)) {
                Thread.onSpinWait();
                continue;
            }
            byte flags = pvti.get(ValueLayout.JAVA_BYTE, VclockCode.PV_FLAGS);
            long mul = Integer.toUnsignedLong(pvti.get(ValueLayout.JAVA_INT_UNALIGNED, VclockCode.PV_MUL));
            int shift = pvti.get(ValueLayout.JAVA_BYTE, VclockCode.PV_SHIFT);
            if (Seqcount.retry(pvti, VclockCode.PV_VERSION, version)) { // as in pvclock()
                Thread.onSpinWait();
                continue;
            }
            if ((flags & VclockCode.PVCLOCK_TSC_STABLE_BIT) == 0 || mul == 0) {
                return 0;
            }
            return Math.scalb(1.0, 32 - shift) / mul;
        }
        return 0;
    }

    /**
     * Converts {@code counter} with the state of base {@code baseOffset} under its seq (see
     * {@link KernelVdso#convert}). A counter at or after cycle_last takes the vDSO's own formula (exact);
     * one before it is extrapolated backwards on the current line, in 128 bits, and flagged inexact.
     */
    static boolean convert(VdsoLayout l, MemorySegment page, long baseOffset, int slot, long counter,
            VdsoNanos into) {
        return convert(l, page, baseOffset, slot, counter, null, 0, into);
    }

    /**
     * As {@link #convert(VdsoLayout, MemorySegment, long, int, long, VdsoNanos)}, where clock_mode
     * PVCLOCK converts the TSC value through the pvclock page {@code pvti} (its first 32 bytes; null: not
     * readable, then PVCLOCK cannot convert), and {@code offsetNanos} (a time namespace's) is added to the result.
     */
    static boolean convert(VdsoLayout l, MemorySegment page, long baseOffset, int slot, long counter,
            MemorySegment pvti, long offsetNanos, VdsoNanos into) {
        BaseState s = into.state;
        boolean pvExact = true;
        long cycles = counter;
        while (true) {
            if (!read(l, page, baseOffset, slot, s)) {
                return false;
            }
            if (s.mode == VclockCode.MODE_PVCLOCK && pvti != null && l.algorithm() == VdsoAlgorithm.X86_OVERFLOW) {
                // Under the vdso seq: the re-check below covers these loads too.
                long pv = pvclock(pvti, counter);
                if (pv == Long.MIN_VALUE) {
                    return false;
                }
                if (!unchanged(page, baseOffset, s)) {
                    continue;
                }
                pvExact = pv >= 0;
                cycles = pv & S64_MAX;
            } else if (!l.arch().vdsoCountsWith(s.mode)) {
                return false;
            }
            break;
        }
        long mask = s.mask;
        long last = s.cycleLast;
        long mult = s.mult;
        int shift = s.shift;
        long c = l.algorithm() == VdsoAlgorithm.X86_OVERFLOW ? cycles & S64_MAX : cycles & mask;
        // At or after cycle_last (the forward distance in the lower half of the counter's range): the
        // window the current state was made for.
        boolean exact = Long.compareUnsigned((c - last) & mask, mask >>> 1) <= 0;
        long behind = (last - c) & mask;
        long n;
        if (exact) {
            n = ns(l, c, last, s.maxCycles, mask, mult, shift, s.nsec);
        } else {
            // Before cycle_last: the current line, backwards. ns = (nsec - behind * mult) >> shift on
            // 128 bits (signed), which for a small lag is the vDSO's formula with a negative delta.
            long prodLo = behind * mult;
            long prodHi = Math.unsignedMultiplyHigh(behind, mult);
            long lo = s.nsec - prodLo;
            long hi = -prodHi - (Long.compareUnsigned(s.nsec, prodLo) < 0 ? 1 : 0);
            n = (lo >>> shift) | (hi << (64 - shift)); // arithmetic on the 128-bit value, low word
        }
        into.nanos = s.sec * 1_000_000_000L + n + offsetNanos;
        into.exact = exact && pvExact;
        into.bound = into.exact ? 0 : Long.MAX_VALUE; // no history: nothing bounds an extrapolation
        into.cycleLast = last;
        into.mult = (int) mult;
        into.shift = shift;
        return true;
    }

    /**
     * One base's state as one seq saw it: the fields the formula and the descriptions use, and one clock's
     * basetime. Mutable and reused by its owner, so that a read allocates nothing.
     */
    static final class BaseState {
        int seq;
        int mode;
        long cycleLast;
        /** 0 where the layout has none. */
        long maxCycles;
        long mask;
        long mult;
        int shift;
        long sec;
        long nsec;
    }

    /**
     * Reads base {@code baseOffset}'s fields and its basetime slot {@code slot} into {@code s} under the base's seq
     * (the vDSO's vdso_read_begin and vdso_read_retry): the one place this library reads the kernel's data in Java.
     *
     * @return false when seq stayed odd for 2^20 looks (a writer that never finishes, or a time-namespace page)
     */
    static boolean read(VdsoLayout l, MemorySegment page, long baseOffset, int slot, BaseState s) {
        long ts = baseOffset + l.basetimeOffset() + (long) slot * VdsoLayout.TIMESTAMP_BYTES;
        for (int spins = 0; spins < 1 << 20; ) {
            int seq = Seqcount.begin(page, baseOffset); // vdso_read_begin: pairs with the kernel's vdso_write_end
            if (Seqcount.writing(seq)) {
                spins++;
                Thread.onSpinWait();
                continue;
            }
            int mode = page.get(ValueLayout.JAVA_INT_UNALIGNED, baseOffset + VdsoLayout.CLOCK_MODE);
            long last = page.get(ValueLayout.JAVA_LONG_UNALIGNED, baseOffset + VdsoLayout.CYCLE_LAST);
            long maxCycles = l.maxCyclesOffset() < 0 ? 0
                    : page.get(ValueLayout.JAVA_LONG_UNALIGNED, baseOffset + l.maxCyclesOffset());
            long mask = page.get(ValueLayout.JAVA_LONG_UNALIGNED, baseOffset + l.maskOffset());
            long mult = Integer.toUnsignedLong(page.get(ValueLayout.JAVA_INT_UNALIGNED, baseOffset + l.multOffset()));
            int shift = page.get(ValueLayout.JAVA_INT_UNALIGNED, baseOffset + l.shiftOffset());
            long sec = page.get(ValueLayout.JAVA_LONG_UNALIGNED, ts);
            long nsec = page.get(ValueLayout.JAVA_LONG_UNALIGNED, ts + 8);
            s.seq = seq;
            if (!unchanged(page, baseOffset, s)) {
                continue;
            }
            s.mode = mode;
            s.cycleLast = last;
            s.maxCycles = maxCycles;
            s.mask = mask;
            s.mult = mult;
            s.shift = shift;
            s.sec = sec;
            s.nsec = nsec;
            return true;
        }
        return false;
    }

    /** {@link #readSet}'s mark of a clock_mode no set can keep. */
    static final long UNKEPT = -1;

    /**
     * Copies one parameter set the kernel published, both bases (CS_HRES_COARSE and CS_RAW) with every counter
     * clock's basetime, under base 0's seq, and the ordered counter read inside that window: the set was the one
     * published when the counter read {@code into[ParameterSet.FIRST_SEEN]}. update_vsyscall bumps every base's
     * seq before it writes any (vdso_write_begin) and after (vdso_write_end), so base 0's seq covers both.
     *
     * On kvm-clock (clock_mode PVCLOCK) the pvclock page is copied too, and the TSC read inside its version's
     * window as well (pvclock_read_begin / retry), so that the set converts ticks as the vDSO did then.
     *
     * @param l          the layout
     * @param page       the data page
     * @param pvti       kvm-clock's pvclock page (its first 32 bytes), or null where none is readable
     * @param into       {@link ParameterSet#STRIDE} longs at {@code at}, overwritten ({@link ParameterSet})
     * @param at         the offset in {@code into}
     * @return false where a write was in progress at every look of a short spin (nothing is copied then), or the
     *         base's clock_mode is not a counter the vDSO reads itself or through {@code pvti} (Hyper-V, a time
     *         namespace's page, an unstable pvclock): then {@code into[at + MODE]} is {@link #UNKEPT}, the rest
     *         undefined
     */
    static boolean readSet(VdsoLayout l, MemorySegment page, MemorySegment pvti, long[] into, int at) {
        long hres = l.baseOffset(VdsoLayout.CS_HRES_COARSE);
        for (int spins = 0; spins < 1 << 10; spins++) {
            int seq = Seqcount.begin(page, hres); // vdso_read_begin: pairs with the kernel's vdso_write_end
            if (Seqcount.writing(seq)) {
                Thread.onSpinWait();
                continue;
            }
            int mode = page.get(ValueLayout.JAVA_INT_UNALIGNED, hres + VdsoLayout.CLOCK_MODE);
            boolean pv = mode == VclockCode.MODE_PVCLOCK && pvti != null
                    && l.algorithm() == VdsoAlgorithm.X86_OVERFLOW;
            if (!pv && !l.arch().vdsoCountsWith(mode)) {
                into[at + ParameterSet.MODE] = UNKEPT;
                return false; // Hyper-V, a time namespace's page: not this counter's line alone
            }
            for (int b = 0; b < 2; b++) {
                long base = l.baseOffset(b);
                int f = at + ParameterSet.BASE + b * ParameterSet.BASE_FIELDS;
                into[f] = page.get(ValueLayout.JAVA_LONG_UNALIGNED, base + VdsoLayout.CYCLE_LAST);
                into[f + 1] = Integer.toUnsignedLong(page.get(ValueLayout.JAVA_INT_UNALIGNED, base + l.multOffset()));
                into[f + 2] = page.get(ValueLayout.JAVA_INT_UNALIGNED, base + l.shiftOffset());
                into[f + 3] = page.get(ValueLayout.JAVA_LONG_UNALIGNED, base + l.maskOffset());
                into[f + 4] = l.maxCyclesOffset() < 0 ? 0
                        : page.get(ValueLayout.JAVA_LONG_UNALIGNED, base + l.maxCyclesOffset());
            }
            for (CounterClock c : ParameterSet.CLOCKS) { // not values(): it copies, and a conversion allocates nothing
                long ts = l.timestampOffset(VdsoLayout.base(c), c.clock().id());
                int f = at + ParameterSet.TIMES + 2 * c.ordinal();
                into[f] = page.get(ValueLayout.JAVA_LONG_UNALIGNED, ts);
                into[f + 1] = page.get(ValueLayout.JAVA_LONG_UNALIGNED, ts + 8);
            }
            into[at + ParameterSet.MODE] = mode;
            long counter;
            if (pv) {
                counter = readPvclock(pvti, into, at + ParameterSet.PV);
                if (counter == Long.MIN_VALUE) {
                    into[at + ParameterSet.MODE] = UNKEPT;
                    return false; // the stable bit is clear, or the page never settled: no line to keep
                }
            } else {
                java.util.Arrays.fill(into, at + ParameterSet.PV, at + ParameterSet.STRIDE, 0L);
                // Ordered: not before the loads above complete (rdtscp, lfence;rdtsc, isb;mrs), so the counter
                // value lies in the window this seq opened.
                counter = VdsoStub.readCounterOrdered();
            }
            // LoadLoad inside retry: the seq is loaded again after the copies; the counter read came before it
            // in program order, and a late seq load can only make the window look longer than it was by the
            // counter read's own latency (the sets either side agree there: the kernel keeps its line
            // continuous at its update).
            if (Seqcount.retry(page, hres, seq)) { // vdso_read_retry: pairs with vdso_write_begin
                continue;
            }
            into[at + ParameterSet.FIRST_SEEN] = counter;
            into[at + ParameterSet.LAST_SEEN] = counter;
            into[at + ParameterSet.FIRST_SEQ] = Integer.toUnsignedLong(seq);
            into[at + ParameterSet.LAST_SEQ] = Integer.toUnsignedLong(seq);
            return true;
        }
        return false;
    }

    /**
     * Copies the pvclock page's tsc_timestamp, system_time, tsc_to_system_mul and tsc_shift into {@code into} at
     * {@code at}, and reads the TSC inside the same version's window (as vread_pvclock does).
     *
     * @return the TSC value, or {@link Long#MIN_VALUE} where the stable bit is clear or the version never settles
     */
    private static long readPvclock(MemorySegment pvti, long[] into, int at) {
        for (int spins = 0; spins < 1 << 10; spins++) {
            int version = Seqcount.begin(pvti, VclockCode.PV_VERSION); // as in pvclock(): pairs with the host's
            if (Seqcount.writing(version)) {
                Thread.onSpinWait();
                continue;
            }
            if ((pvti.get(ValueLayout.JAVA_BYTE, VclockCode.PV_FLAGS) & VclockCode.PVCLOCK_TSC_STABLE_BIT) == 0) {
                return Long.MIN_VALUE;
            }
            into[at] = pvti.get(ValueLayout.JAVA_LONG_UNALIGNED, VclockCode.PV_TSC_TIMESTAMP);
            into[at + 1] = pvti.get(ValueLayout.JAVA_LONG_UNALIGNED, VclockCode.PV_SYSTEM_TIME);
            into[at + 2] = Integer.toUnsignedLong(pvti.get(ValueLayout.JAVA_INT_UNALIGNED, VclockCode.PV_MUL));
            into[at + 3] = pvti.get(ValueLayout.JAVA_BYTE, VclockCode.PV_SHIFT);
            // Ordered: after the loads above (rdtscp), inside the version's window, as rdtsc_ordered() is.
            long tsc = VdsoStub.readCounterOrdered();
            if (!Seqcount.retry(pvti, VclockCode.PV_VERSION, version)) { // pvclock_read_retry
                return tsc;
            }
        }
        return Long.MIN_VALUE;
    }

    /** What {@link #realtimeLead} returns where the seq never settled. */
    static final long NO_LEAD = Long.MIN_VALUE;

    /**
     * REALTIME - MONOTONIC in ns, from base {@code baseOffset}'s two basetime slots under one seq: minus the
     * kernel's wall_to_monotonic (update_vsyscall writes MONOTONIC's slot as REALTIME's plus it, nsec shifted
     * alike, so the difference is exact). Slewing moves both clocks alike; only a set of REALTIME (clock_settime,
     * settimeofday, ADJ_SETOFFSET, a leap second) changes it.
     *
     * @param base  the page from the base on (its seq at 0)
     * @param real  the offset of basetime[CLOCK_REALTIME] in it (basetime[CLOCK_MONOTONIC] follows)
     * @param shift the offset of the base's shift in it
     * @return the lead, or {@link #NO_LEAD} when seq never settles ({@link Seqcount#pace}) or the base is a time
     *         namespace's page
     */
    static long realtimeLead(MemorySegment base, long real, long shift) {
        long mono = real + VdsoLayout.TIMESTAMP_BYTES;
        long giveUpAt = 0;
        for (int attempt = 0; ; attempt++) {
            giveUpAt = Seqcount.pace(attempt, giveUpAt); // spin, then yield, then give up
            if (giveUpAt == Seqcount.GIVE_UP) {
                return NO_LEAD; // the count never settles: nothing is known of the lead
            }
            int seq = Seqcount.begin(base, 0); // vdso_read_begin: pairs with the kernel's vdso_write_end
            if (Seqcount.writing(seq)) {
                if (base.get(ValueLayout.JAVA_INT_UNALIGNED, VdsoLayout.CLOCK_MODE) == VdsoLayout.CLOCKMODE_TIMENS) {
                    return NO_LEAD; // a time namespace's page (seq stays 1): the data moved, as the vDSO tests
                }
                continue;
            }
            long rs = base.get(ValueLayout.JAVA_LONG_UNALIGNED, real);
            long rn = base.get(ValueLayout.JAVA_LONG_UNALIGNED, real + 8);
            long ms = base.get(ValueLayout.JAVA_LONG_UNALIGNED, mono);
            long mn = base.get(ValueLayout.JAVA_LONG_UNALIGNED, mono + 8);
            int sh = base.get(ValueLayout.JAVA_INT_UNALIGNED, shift);
            if (Seqcount.retry(base, 0, seq)) { // vdso_read_retry: pairs with vdso_write_begin
                continue;
            }
            return lead(rs, rn, ms, mn, sh);
        }
    }

    /** REALTIME - MONOTONIC in ns from their basetimes (sec, nsec shifted left by {@code shift}). */
    static long lead(long realSec, long realNsec, long monoSec, long monoNsec, long shift) {
        // Both nsec are below 10^9 << shift, so their difference fits; it is a multiple of 1 << shift.
        return (realSec - monoSec) * 1_000_000_000L + ((realNsec - monoNsec) >> shift);
    }

    /**
     * Whether base {@code baseOffset}'s seq is still the one {@link #read} saw: then every load made since (the
     * fields, a vclock page's) saw that state. The loads complete before the seq re-load; pairs with the kernel's
     * smp_wmb before its closing seq increment (vdso_write_end), as vdso_read_retry.
     */
    static boolean unchanged(MemorySegment page, long baseOffset, BaseState s) {
        return !Seqcount.retry(page, baseOffset, s.seq); // vdso_read_retry: pairs with vdso_write_begin
    }
}
