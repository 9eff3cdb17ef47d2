package org.timekeeping4j.vdso;

import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import org.timekeeping4j.arch.VdsoAlgorithm;
import org.timekeeping4j.machine.ClockGettimeStub;
import org.timekeeping4j.machine.Stubs;
import org.timekeeping4j.machine.VclockCode;
import org.timekeeping4j.machine.VdsoStub;
import org.timekeeping4j.timekeeper.CounterClock;

/**
 * One discovery's outcome and the reads mapped for it: the addresses of the kernel's data, the time namespace's
 * page, the AUX clocks' bases, and the read's entries for {@link ReadEntry}'s sites. The first discovery makes
 * the first generation; a re-discovery (the kernel data moved under the process: a checkpoint restored into a
 * new time namespace, or onto another kernel) makes the next, and {@link KernelVdso} retargets its call sites to
 * it. Immutable once built.
 *
 * <p>A time namespace's offsets are read from the namespace's page at every read (two loads, as the vDSO's
 * do_hres_timens does), not kept as constants: a restored process sits in a new namespace at the same addresses,
 * whose page holds other offsets, and a constant would then give a stale value without any read falling back.
 */
final class Generation {

    /** The clocks of sites 1 to 5, in order (site 0 is the generic read, which takes its clock's arguments). */
    static final CounterClock[] BOUND = {CounterClock.REALTIME, CounterClock.MONOTONIC,
        CounterClock.MONOTONIC_RAW, CounterClock.BOOTTIME, CounterClock.TAI};

    final Discovery.Result state;
    /** The read's vclock argument: the pvclock page and which vclock pages it may load from. */
    final long vclock;
    /** The pvclock page for conversions in Java (snapshots, ticksToNanos), or null. */
    final MemorySegment pvti;
    /** The namespace's page (page 0 of [vvar]) inside a time namespace, else null. */
    final MemorySegment nsPage;
    /** Page 0 of [vvar]'s seq and clock_mode where exact mode serves (made once: the check allocates nothing), else null. */
    private final MemorySegment page0;
    /** Per {@link CounterClock#record()}: the address of the clock's base and of its basetime slot. */
    final long[] base = new long[CounterClock.values().length];
    final long[] timestamp = new long[CounterClock.values().length];
    /** AUX clocks (6.17+): bit i for CLOCK_AUX+i, each base auxStride bytes after auxBase. */
    final int auxMask;
    final long auxBase;
    final long auxStride;
    final long auxTimestamp;
    /**
     * Base CS_HRES_COARSE's seq and fields, for {@link KernelVdso#realtimeLead}: the page from the base on, or null
     * when not enabled; {@link #leadReal} and {@link #leadShift} are offsets in it.
     */
    final MemorySegment hres;
    final long leadReal;
    final long leadShift;
    /**
     * Per site (0: generic, 1-5: {@link #BOUND}): the read, and the kernel path's clock_gettime stub that serves
     * instead where the read's fallbacks are the rule (null outside a namespace where the stubs are not mapped,
     * and in a namespace: see {@link #entries}).
     */
    final MethodHandle[] read;
    final MethodHandle[] clockGettime;
    /** MONOTONIC's clock_mode (4 bytes of the vDSO data), which {@link ReadEntry} watches; null with clockGettime. */
    final MemorySegment mode;
    /** The clock_modes the read serves (bit m: mode m), the vclock pages' only where they may be read. */
    final int modesRead;

    Generation(Discovery.Result state) {
        this.state = state;
        this.vclock = state.vclock().word();
        this.pvti = state.vclock().pvti();
        boolean enabled = state.reason() == null;
        this.nsPage = enabled && state.timens().inNamespace()
                ? MemorySegment.ofAddress(state.mapping().start()).reinterpret(state.page().address()
                        - state.mapping().start()) : null;
        this.page0 = enabled ? MemorySegment.ofAddress(state.mapping().start()).reinterpret(VdsoLayout.CLOCK_MODE + 4)
                : null;
        for (CounterClock c : CounterClock.values()) {
            base[c.record()] = state.base(VdsoLayout.base(c));
            timestamp[c.record()] = state.timestamp(c);
        }
        this.auxMask = Discovery.auxMask(state);
        this.auxBase = auxMask == 0 ? 0 : state.page().address() + state.layout().auxOffset();
        this.auxStride = auxMask == 0 ? 0 : state.layout().stride();
        this.auxTimestamp = auxMask == 0 ? 0 : state.layout().basetimeOffset();
        long hresOffset = enabled ? state.layout().baseOffset(VdsoLayout.CS_HRES_COARSE) : 0;
        this.hres = enabled ? state.page().asSlice(hresOffset) : null;
        this.leadReal = enabled ? state.layout().basetimeOffset() : 0;
        this.leadShift = enabled ? state.layout().shiftOffset() : 0;
        this.read = new MethodHandle[1 + BOUND.length];
        this.clockGettime = new MethodHandle[read.length];
        this.modesRead = enabled ? modesRead(state.layout().algorithm(), vclock) : 0;
        if (enabled) {
            entries();
        }
        this.mode = enabled && clockGettime[0] != null ? MemorySegment.ofAddress(base[CounterClock.MONOTONIC.record()]
                + VdsoLayout.CLOCK_MODE).reinterpret(4) : null;
    }

    /** {@return true when exact mode serves from this generation} */
    boolean enabled() {
        return state.reason() == null;
    }

    /** {@return true when this generation reads inside a time namespace} */
    boolean inNamespace() {
        return nsPage != null;
    }

    /**
     * The namespace's offset of {@code clockId} now, read from its page (0 outside a namespace; the slot is
     * {@link Discovery#namespaceSlot}'s).
     */
    long offsetNow(int clockId) {
        return nsPage == null ? 0 : offset(nsPage, Discovery.namespaceSlot(clockId));
    }

    /** The offset in {@code nsPage}'s struct timens_offset at {@code slot}, 0 for a clock without one (slot -1). */
    private static long offset(MemorySegment nsPage, long slot) {
        return slot < 0 ? 0 : Discovery.offsetNanos(nsPage, slot);
    }

    /**
     * Whether page 0 of this generation's [vvar] is now a time namespace's page although this generation read no
     * namespace: the process was restored into a new time namespace (CRIU does so, so that MONOTONIC and BOOTTIME
     * continue), or moved otherwise. Two plain loads; called only where a read already fell back.
     */
    boolean movedIntoNamespace() {
        if (page0 == null || nsPage != null) {
            return false;
        }
        return Discovery.isNamespacePage(page0);
    }

    /**
     * The read's entries: where the machine code completes its own fallback (x86_64 6.10+), the completing read;
     * elsewhere (x86_64 5.3-6.9, arm64) the plain read, whose fallback value makes the caller ask clock_gettime. The
     * bound sites: the completing code mapped once per clock with its arguments as immediates (a downcall without
     * arguments costs less), elsewhere the same handles with the arguments bound in Java. Outside a time namespace
     * each site also gets the kernel path's clock_gettime stub of its clock, which serves instead where fallbacks
     * are the rule ({@link ReadEntry}); in a namespace the plain read alone, its value plus the namespace's offset
     * (clock_gettime's value there carries the offsets already, so it never stands in for the read: a fallback is
     * answered by the caller's clock_gettime, and the read serves for good).
     */
    private void entries() {
        MethodHandle plain = state.read();
        VdsoAlgorithm algorithm = state.layout().algorithm();
        read[0] = plain;
        boolean completing = false;
        if (nsPage == null) {
            Stubs.Mapped cf = VdsoStub.completesFallback(algorithm) ? VdsoStub.map(algorithm, true, true) : null;
            completing = cf != null && cf.ok();
            if (completing) {
                read[0] = cf.handle();
            }
            clockGettime[0] = clockGettimeOfAnyClock();
        }
        for (int i = 1; i < read.length; i++) {
            CounterClock c = BOUND[i - 1];
            long vc = base[c.record()];
            long ts = timestamp[c.record()];
            int id = c.clock().id();
            // The completing code maps bound; the plain read binds in Java.
            read[i] = withOffset(bound(completing ? VdsoStub.mapBound(algorithm, true, vc, ts, id, vclock) : null,
                    read[0], vc, ts, id), id);
            clockGettime[i] = clockGettime[0] == null ? null : ClockGettimeStub.handle(id);
        }
    }

    /**
     * The kernel path's clock_gettime stub as the generic site's target: {@code (vc, ts, clockId, vclock) ->
     * clock_gettime(clockId)} in ns (or {@link ClockGettimeStub#FAILED}), the read's own arguments, so no adapter;
     * null where the stubs are not mapped.
     */
    static MethodHandle clockGettimeOfAnyClock() {
        return ClockGettimeStub.NANOS;
    }

    /** The clock_modes {@code algorithm}'s read serves with the vclock word {@code vclock} (bit m: mode m). */
    private static int modesRead(VdsoAlgorithm algorithm, long vclock) {
        int modes = algorithm.modesRead();
        if (algorithm != VdsoAlgorithm.X86_OVERFLOW) {
            return modes; // only the x86_64 6.10+ read serves the vclock modes
        }
        if ((vclock & VclockCode.PVCLOCK_READABLE) == 0) {
            modes &= ~(1 << VclockCode.MODE_PVCLOCK);
        }
        if ((vclock & VclockCode.HVCLOCK_READABLE) == 0) {
            modes &= ~(1 << VclockCode.MODE_HVCLOCK);
        }
        return modes;
    }

    /** {@code mapped}'s handle where it mapped, else {@code generic} with the arguments bound in Java. */
    private MethodHandle bound(Stubs.Mapped mapped, MethodHandle generic, long vc, long ts, int clockId) {
        return mapped != null && mapped.ok() ? mapped.handle()
                : MethodHandles.insertArguments(generic, 0, vc, ts, (long) clockId, vclock);
    }

    /**
     * A bound read with the namespace's offset of {@code clockId} added from its page at each read (the flagged and
     * fallback values kept); the read itself outside a namespace or for a clock without an offset.
     */
    private MethodHandle withOffset(MethodHandle read, int clockId) {
        long slot = Discovery.namespaceSlot(clockId);
        if (nsPage == null || slot < 0) {
            return read;
        }
        return MethodHandles.filterReturnValue(read,
                MethodHandles.insertArguments(AddOffset.HANDLE, 0, nsPage, slot));
    }

    /**
     * {@link #addOffset} as a handle, in a holder of its own: only a discovery inside a time namespace binds it, and
     * a direct handle to a new signature costs a cold JVM its LambdaForms.
     */
    private static final class AddOffset {
        static final MethodHandle HANDLE;

        static {
            try {
                HANDLE = MethodHandles.lookup().findStatic(Generation.class, "addOffset",
                        MethodType.methodType(long.class, MemorySegment.class, long.class, long.class));
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }
    }

    /** {@code v} plus the offset in {@code nsPage}'s {@code slot}; a flagged or fallback value (negative) kept. */
    private static long addOffset(MemorySegment nsPage, long slot, long v) {
        return v < 0 ? v : v + offset(nsPage, slot);
    }
}
