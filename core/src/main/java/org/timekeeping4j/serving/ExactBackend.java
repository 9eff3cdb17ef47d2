package org.timekeeping4j.serving;

import java.time.Instant;
import java.util.List;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Diagnostics;
import org.timekeeping4j.disruption.Disruptions;
import org.timekeeping4j.machine.VdsoStub;
import org.timekeeping4j.timekeeper.CounterClock;
import org.timekeeping4j.vdso.KernelVdso;
import org.timekeeping4j.vdso.VdsoLayout;
import org.timekeeping4j.vdso.VdsoNanos;

/**
 * Exact mode: the kernel's own vDSO data read with the vDSO's arithmetic ({@link KernelVdso}), equal to
 * clock_gettime bit for bit; no thread, no calibration. A read the vDSO itself would not serve (clock_mode changed,
 * seq stuck odd) is answered by clock_gettime, as the vDSO does. Ticks are counter cycles, converted with the
 * kernel's current parameters. Stateless: the generation a re-discovery builds is the call sites' to hold
 * ({@code KernelVdso.rediscover} retargets them), so one instance serves every exact-mode period of the process.
 */
final class ExactBackend extends Backend {

    private ExactBackend() {}

    /** Typed {@code Backend}: see {@link Backend} (verifying the caller loads no implementation). */
    static Backend create() {
        return new ExactBackend();
    }

    @Override
    long monotonic() {
        return exactOr(KernelVdso.monotonic(), ClockId.MONOTONIC);
    }

    @Override
    long realtime() {
        return exactOr(KernelVdso.realtime(), ClockId.REALTIME);
    }

    @Override
    long monotonicRaw() {
        return exactOr(KernelVdso.monotonicRaw(), ClockId.MONOTONIC_RAW);
    }

    @Override
    long boottime() {
        return exactOr(KernelVdso.boottime(), ClockId.BOOTTIME);
    }

    @Override
    long tai() {
        return exactOr(KernelVdso.tai(), ClockId.TAI);
    }

    /**
     * An exact-mode read's value, or clock_gettime where it fell back. The test is {@code >= 0}, not
     * {@code != FALLBACK} (Long.MIN_VALUE): the read's own test of its flag bit is the same comparison, so the JIT
     * folds the two into one; and a negative value, which no clock the kernel keeps has, is the kernel's to answer.
     */
    private static long exactOr(long exact, ClockId clock) {
        return exact >= 0 ? exact : KernelPath.mapped(clock);
    }

    @Override
    long nanos(ClockId clock) {
        CounterClock c = CounterClock.of(clock);
        if (c != null) {
            return exactOr(KernelVdso.read(c), clock); // a counter clock without a method of its own above
        }
        if (clock.isAux() && KernelVdso.servesAux(clock.id() - ClockId.AUX_BASE)) {
            long v = KernelVdso.aux(clock.id() - ClockId.AUX_BASE);
            if (v != VdsoStub.FALLBACK) {
                return v;
            }
        }
        return KernelPath.mapped(clock);
    }

    @Override
    long nanosUnordered(ClockId clock) {
        CounterClock c = CounterClock.of(clock);
        if (c != null) {
            long v = KernelVdso.readUnordered(c);
            if (v != VdsoStub.FALLBACK) {
                return v;
            }
        }
        return FastPath.nanos(clock);
    }

    @Override
    long kernelNanos(ClockId clock) {
        return KernelPath.mapped(clock); // mapped before exact mode was discovered
    }

    @Override
    long ticks() {
        return VdsoStub.readCounterUnordered(); // the counter itself: no calibration, nothing to wait for
    }

    @Override
    void convert(long ticks, ClockId clock, TicksConverter into) {
        into.fromCycles(ticks, clock);
    }

    /**
     * The data's seq, the ordered counter read, then both clocks converted at it with the kernel's parameters (the
     * vDSO's formula, the vDSO's order). Exact where the conversion used the set published at the read (the same
     * seq); flagged where a kernel update came between the counter read and the conversion (a tick's, or a
     * daemon's frequency change, which keeps cycle_last and changes the line at once), or a disruption was seen
     * since the counter read.
     */
    @Override
    void snapshot(ClockId clock, Capture into) {
        CounterClock c = CounterClock.of(clock);
        if (c == null) {
            throw Capture.notSnapshotCapable(clock);
        }
        int seq = KernelVdso.seq(c); // acquire: pairs with the kernel's vdso_write_end; the counter read follows it
        long counter = VdsoStub.readCounterOrdered();
        if (KernelVdso.convert(counter, c, into.exactA)
                && KernelVdso.convert(counter, CounterClock.MONOTONIC_RAW, into.exactB)) {
            // MONOTONIC_RAW needs no such check: no frequency change moves its line, and a tick's moves cycle_last
            // past the counter value (exactB.exact() false).
            boolean sameSet = into.exactA.seq() == seq;
            into.fromCounter(counter, into.exactA.nanos(), into.exactB.nanos(), sameSet && into.exactA.exact()
                    && into.exactB.exact() && !Disruptions.before(counter)); // a disruption since (VMClock)
        } else {
            into.fromKernel(clock);
        }
    }

    @Override
    boolean crossFromCounter(ClockId a, ClockId b, Capture into) {
        CounterClock ca = CounterClock.of(a);
        CounterClock cb = CounterClock.of(b);
        if (ca == null || cb == null) {
            return false;
        }
        long counter = VdsoStub.readCounterOrdered();
        if (!KernelVdso.convert(counter, ca, into.exactA) || !KernelVdso.convert(counter, cb, into.exactB)) {
            return false;
        }
        into.fromCounter(counter, into.exactA.nanos(), into.exactB.nanos(), false);
        return true;
    }

    @Override
    boolean servesFromCounter() {
        return true;
    }

    @Override
    List<Diagnostics.Serving> clocks(Instant since) {
        String layout = KernelVdso.state().layout().description();
        return ServingReport.clocks(true, "exact: the kernel's vDSO data (" + layout + ") with the vDSO's arithmetic"
                + " around " + KernelVdso.counterRead() + ", equal to clock_gettime; now " + KernelVdso.vclockNow()
                + (KernelVdso.timens().inNamespace() ? "; with the time namespace's offsets" : ""), since);
    }

    @Override
    Diagnostics.VdsoData vdsoData() {
        KernelVdso.Fields h = KernelVdso.fields(VdsoLayout.CS_HRES_COARSE);
        KernelVdso.Fields r = KernelVdso.fields(VdsoLayout.CS_RAW);
        var ns = KernelVdso.timens();
        String vclock = KernelVdso.vclockNow() + (ns.inNamespace() ? "; in a time namespace: MONOTONIC and"
                + " MONOTONIC_RAW + " + ns.monotonic() + " ns, BOOTTIME + " + ns.boottime() + " ns" : "");
        // The raw line at the kernel's last update: where the counter no longer serves (clock_mode changed), none.
        VdsoNanos at = new VdsoNanos();
        boolean converts = KernelVdso.convert(r.cycleLast(), CounterClock.MONOTONIC_RAW, at);
        long maxCycles = r.maxCycles() > 0 ? r.maxCycles() : Long.MAX_VALUE;
        long validFor = converts ? (long) Math.min(Long.MAX_VALUE, maxCycles / r.frequencyHz() * 1e9) : 0;
        return new Diagnostics.VdsoData(true, null, KernelVdso.state().layout().description(),
                KernelVdso.counterRead(), vclock, h.seq(), h.mult(), h.shift(), r.mult(), r.shift(),
                converts ? r.cycleLast() : 0, converts ? at.nanos() : 0, validFor,
                ns.inNamespace() ? ns.monotonic() : 0, ns.inNamespace() ? ns.boottime() : 0);
    }
}
