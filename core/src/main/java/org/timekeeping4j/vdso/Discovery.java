package org.timekeeping4j.vdso;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.List;
import org.timekeeping4j.clocksource.CounterArch;
import org.timekeeping4j.config.Configuration;
import org.timekeeping4j.machine.VdsoStub;
import org.timekeeping4j.linux.LinuxTime;
import org.timekeeping4j.linux.Platform;
import org.timekeeping4j.timekeeper.CounterClock;

/**
 * Finds, recognises and validates the kernel's vDSO time data for {@link KernelVdso} (the kernel's side:
 * include/vdso/datapage.h and lib/vdso/gettimeofday.c), in this order, refusing at the first doubt with a one-line reason:
 * <ol>
 * <li>configuration ({@code timekeeping4j.vdso=off}, {@code timekeeping4j.counter=kernel});</li>
 * <li>the time namespace: a process in one of its own reads the namespace's page at page 0, whose seq
 *     stays odd; exact mode refuses it (clock_gettime applies the offsets);</li>
 * <li>[vvar] by its exact name in /proc/self/maps; only its first page is ever touched (other vvar pages
 *     may be unbacked: a load there is SIGBUS, a JVM crash);</li>
 * <li>the layout, recognised by content ({@link VdsoLayout#recognise});</li>
 * <li>clock_mode: the counter (TSC, ARCHTIMER), not pvclock/hvclock or none;</li>
 * <li>the machine code mapped (executable memory may be refused);</li>
 * <li>every served clock within brackets of clock_gettime reads, {@value #BRACKETS} times each.</li>
 * </ol>
 */
public final class Discovery {

    /** Bracketed reads per clock before exact mode is enabled. */
    static final int BRACKETS = 64;

    private Discovery() {}

    /**
     * What discovery found.
     *
     * @param reason    null when exact mode serves, else why not
     * @param layout    the recognised layout, or null
     * @param mapping   [vvar], or null
     * @param page      page 0 of [vvar] (read-only kernel memory), or null
     * @param read      the ordered read's handle, or null
     * @param rejected  the layouts tried and why each did not fit
     */
    public record Result(String reason, VdsoLayout layout, VvarMapping mapping, MemorySegment page,
                         MethodHandle read,
                         List<String> rejected) {

        static Result refused(String reason) {
            return new Result(reason, null, null, null, null, List.of());
        }

        /** Address of base {@code base}'s struct; 0 when not enabled. */
        long base(int base) {
            return reason == null ? page.address() + layout.baseOffset(base) : 0;
        }

        /** Address of {@code clock}'s basetime slot; 0 when not enabled. */
        long timestamp(CounterClock clock) {
            return reason == null ? page.address() + layout.timestampOffset(VdsoLayout.base(clock), clock.clock().id()) : 0;
        }
    }

    static Result run() {
        return run(Platform.ARCH);
    }

    /** Discovery as on a {@code machine} processor (Platform.ARCH; tests name another). */
    static Result run(String machine) {
        try {
            return discover(machine);
        } catch (RuntimeException | IOException e) {
            return Result.refused("discovery failed: " + e);
        }
    }

    private static Result discover(String machine) throws IOException {
        IllegalArgumentException config = KernelVdso.configError() != null ? KernelVdso.configError()
                : org.timekeeping4j.clocksource.CounterSelector.configError();
        if (config != null) {
            return Result.refused(config.getMessage());
        }
        if (!Configuration.PROCESS.exactMode()) {
            return Result.refused("exact mode switched off (" + KernelVdso.PROPERTY + "=off)");
        }
        if (Configuration.PROCESS.kernelChosen()) {
            return Result.refused("the counter is not read by choice (timekeeping4j.counter=kernel)");
        }
        if (Platform.UNSUPPORTED_REASON != null) {
            return Result.refused(Platform.UNSUPPORTED_REASON);
        }
        CounterArch arch = CounterArch.of(machine);
        if (arch == null) {
            return Result.refused(CounterArch.noDescriptor(machine));
        }
        String ns = VvarMapping.timeNamespace();
        if (ns.startsWith("other")) {
            return Result.refused("this process runs in a time namespace of its own (" + ns.substring(7)
                    + "): clock_gettime applies its offsets");
        }
        VvarMapping mapping;
        try {
            mapping = VvarMapping.ofThisProcess();
        } catch (IOException e) {
            return Result.refused("cannot read /proc/self/maps (" + e + "): a hidden or restricted /proc");
        }
        if (mapping == null) {
            return Result.refused("no [vvar] mapping in /proc/self/maps (vDSO disabled, or /proc hidden)");
        }
        long pageSize = pageSize();
        if (mapping.size() < pageSize || mapping.start() % pageSize != 0) {
            return Result.refused("[vvar] of " + mapping.size() + " bytes at 0x" + Long.toHexString(mapping.start())
                    + " is not a kernel vvar mapping (page size " + pageSize + ")");
        }
        if (mapping.vdsoStart() != 0 && Long.compareUnsigned(mapping.vdsoStart(), mapping.end()) < 0) {
            return Result.refused("[vdso] does not follow [vvar]: not a Linux vvar mapping");
        }
        // Only page 0: the rest of [vvar] may be unbacked (SIGBUS on a load).
        MemorySegment page = MemorySegment.ofAddress(mapping.start()).reinterpret(pageSize);
        VdsoLayout layout = null;
        VdsoLayout.Recognition rec = null;
        for (int attempt = 0; attempt < 8 && layout == null; attempt++) { // a kernel update may race the checks
            VdsoLayout.Expected expected = new VdsoLayout.Expected(
                    LinuxTime.clockGettimeNanos(0) / 1_000_000_000L,
                    LinuxTime.clockGettimeNanos(1) / 1_000_000_000L,
                    LinuxTime.clockGettimeNanos(4) / 1_000_000_000L);
            rec = VdsoLayout.recognise(page, arch, expected);
            layout = rec.layout();
        }
        if (layout == null) {
            return new Result(rec.fitting().isEmpty() ? "no known vDSO data layout fits [vvar]: "
                    + String.join("; ", rec.rejected()) : "several layouts fit [vvar]: " + rec.fitting(),
                    null, mapping, null, null, rec.rejected());
        }
        int mode = page.get(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED,
                layout.baseOffset(0) + VdsoLayout.CLOCK_MODE);
        if (!arch.vdsoCountsWith(mode)) {
            return new Result("the kernel's vDSO does not read the counter itself (clock_mode " + modeName(mode)
                    + "): clock_gettime serves", layout, mapping, null, null, rec.rejected());
        }
        String refusal = arch.vdsoRefusal(LinuxTime.uname().release());
        if (refusal != null) {
            return new Result(refusal, layout, mapping, null, null, rec.rejected());
        }
        VdsoStub.Mapping ordered = VdsoStub.map(arch, layout.x86Algorithm(), true);
        if (!ordered.ok()) {
            return new Result("the read's machine code cannot run: " + ordered.failure(), layout, mapping, null,
                    null, rec.rejected());
        }
        Result r = new Result(null, layout, mapping, page, ordered.handle(), rec.rejected());
        String bad = validate(r);
        return bad == null ? r : new Result(bad, layout, mapping, null, null, rec.rejected());
    }

    /**
     * The AUX clocks exact mode serves, bit i for CLOCK_AUX+i: those that clock_gettime reads now (Linux 6.17+
     * with CONFIG_POSIX_AUX_CLOCKS, enabled through sysfs) in a layout with the AUX bases, each checked against
     * clock_gettime brackets like the other clocks. An AUX clock enabled later is read by clock_gettime; one
     * disabled later reads clock_mode NONE, and the read falls back to clock_gettime.
     */
    static int auxMask(Result r) {
        if (r.reason() != null || r.layout().auxOffset() < 0) {
            return 0;
        }
        int mask = 0;
        for (int i = 0; i < 8; i++) {
            int id = org.timekeeping4j.ClockId.AUX_BASE + i;
            if (LinuxTime.clockGettimeErrno(id) != 0) {
                continue;
            }
            long vc = r.page().address() + r.layout().auxBaseOffset(i);
            long ts = vc + r.layout().basetimeOffset(); // basetime[0]: VDSO_BASE_AUX
            if (bracketCheck(r, id, vc, ts) == null) {
                mask |= 1 << i;
            }
        }
        return mask;
    }

    /** Null when every served clock lies within its clock_gettime brackets, else the first that does not. */
    static String validate(Result r) {
        for (CounterClock c : CounterClock.values()) {
            String bad = bracketCheck(r, c.clock().id(), r.base(VdsoLayout.base(c)), r.timestamp(c));
            if (bad != null) {
                return bad;
            }
            // The Java formula (snapshots, ticksToNanos) over the same page, at a counter read between two
            // kernel reads. This also initialises the conversion's classes and the counter stub now, so that
            // a first snapshot does not spend milliseconds between its counter read and its conversion.
            KernelVdso.Conversion conv = new KernelVdso.Conversion();
            long k0 = LinuxTime.clockGettimeNanos(c.clock().id());
            long counter = VdsoStub.readCounterOrdered();
            long k1 = LinuxTime.clockGettimeNanos(c.clock().id());
            if (VdsoFormula.convert(r.layout(), r.page(), r.layout().baseOffset(VdsoLayout.base(c)), c.clock().id(), counter, conv)
                    && conv.exact() && (conv.nanos() - k0 < 0 || k1 - conv.nanos() < 0)) {
                return "the conversion of a counter value to " + c.clock() + " left clock_gettime's bracket ("
                        + k0 + " <= " + conv.nanos() + " <= " + k1 + " fails) with layout " + r.layout();
            }
        }
        return null;
    }

    /**
     * Null when {@value #BRACKETS} reads of clock {@code clockId} through base {@code vc} and basetime slot {@code ts}
     * each lie between the clock_gettime reads around them (and at least one did not fall back), else why not.
     */
    private static String bracketCheck(Result r, int clockId, long vc, long ts) {
        String name = org.timekeeping4j.ClockId.of(clockId).kernelName();
        int served = 0;
        for (int i = 0; i < BRACKETS; i++) {
            long k0 = LinuxTime.clockGettimeNanos(clockId);
            long v = VdsoStub.invoke(r.read(), vc, ts, 0);
            long k1 = LinuxTime.clockGettimeNanos(clockId);
            if (v == VdsoStub.FALLBACK) {
                continue;
            }
            served++;
            if (v - k0 < 0 || k1 - v < 0) {
                return "the vDSO data read of " + name + " left clock_gettime's bracket (" + k0 + " <= " + v + " <= "
                        + k1 + " fails) with layout " + r.layout() + ": not trusted";
            }
        }
        return served > 0 ? null : "the vDSO data read of " + name + " fell back to clock_gettime " + BRACKETS
                + " times";
    }

    static String modeName(int mode) {
        return switch (mode) {
            case 0 -> "0, NONE";
            case 1 -> "1, TSC/ARCHTIMER";
            case 2 -> "2, PVCLOCK (x86) / ARCHTIMER_NOCOMPAT (arm64)";
            case 3 -> "3, HVCLOCK";
            case VdsoLayout.CLOCKMODE_TIMENS -> "TIMENS";
            default -> String.valueOf(mode);
        };
    }

    private static long pageSize() {
        // x86_64: 4 KiB. arm64: 4, 16 or 64 KiB; the data sits at +0 of the first page either way, and
        // recognition reads less than 4 KiB of it, so 4 KiB is a safe lower bound for the segment.
        return 4096;
    }
}
