package org.timekeeping4j.vdso;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.List;
import java.util.Set;
import org.timekeeping4j.arch.Arch;
import org.timekeeping4j.arch.VdsoAlgorithm;
import org.timekeeping4j.config.Configuration;
import org.timekeeping4j.linux.KernelInfo;
import org.timekeeping4j.linux.LinuxTime;
import org.timekeeping4j.linux.PageProbe;
import org.timekeeping4j.linux.Platform;
import org.timekeeping4j.machine.ClockGettimeStub;
import org.timekeeping4j.machine.Stubs;
import org.timekeeping4j.machine.VclockCode;
import org.timekeeping4j.machine.VdsoStub;
import org.timekeeping4j.timekeeper.CounterClock;

/**
 * Finds, recognises and validates the kernel's vDSO time data for {@link KernelVdso} (the kernel's side:
 * include/vdso/datapage.h and lib/vdso/gettimeofday.c), in this order, refusing at the first doubt with a one-line reason:
 * <ol>
 * <li>configuration ({@code timekeeping4j.vdso=off}, {@code timekeeping4j.counter=kernel}, a bad
 *     {@code timekeeping4j.vclock}: {@link Configuration});</li>
 * <li>[vvar] by its exact name in /proc/self/maps; page 0 is touched first (other vvar pages may be
 *     unbacked: a load there is SIGBUS, a JVM crash);</li>
 * <li>the time namespace: a process in one of its own reads the namespace's page at page 0 (seq odd,
 *     clock_mode VDSO_CLOCKMODE_TIMENS, the offsets in its basetime slots); the kernel's data is then the
 *     next page (x86_64 6.13+, as do_hres_timens reads it), and reads add the offsets;</li>
 * <li>the layout, recognised by content ({@link VdsoLayout#recognise});</li>
 * <li>clock_mode: the counter (TSC, ARCHTIMER), or PVCLOCK where the pvclock page is backed (found without a
 *     load from it) and stable; not HVCLOCK or none;</li>
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
     * @param page      the page holding the kernel's time data (read-only kernel memory): page 0 of [vvar], or
     *                  in a time namespace the page after the namespace's page; or null
     * @param read      the ordered read's handle, or null
     * @param rejected  the layouts tried and why each did not fit
     * @param vclock    the vclock pages the read may load from ({@link Vclock}); never null
     * @param timens    the time namespace's offsets, or {@link Timens#NONE}
     */
    public record Result(String reason, VdsoLayout layout, VvarMapping mapping, MemorySegment page,
                         MethodHandle read,
                         List<String> rejected, Vclock vclock, Timens timens) {

        Result(String reason, VdsoLayout layout, VvarMapping mapping, MemorySegment page, MethodHandle read,
                List<String> rejected) {
            this(reason, layout, mapping, page, read, rejected, Vclock.NONE, Timens.NONE);
        }

        static Result refused(String reason) {
            return new Result(reason, null, null, null, null, List.of());
        }

        Result refusing(String why) {
            return new Result(why, layout, mapping, null, null, rejected, vclock, timens);
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

    /**
     * The vclock pages (x86: the pvclock page of kvm-clock, the hvclock page of Hyper-V) and whether the read
     * may load from each: the read's vclock argument ({@code org.timekeeping4j.machine.VclockCode}).
     *
     * @param word   the pvclock page's address with the readable bits, or 0
     * @param pvclock what serves clock_mode PVCLOCK, or why clock_gettime does
     * @param hvclock what serves clock_mode HVCLOCK, or why clock_gettime does
     */
    public record Vclock(long word, String pvclock, String hvclock) {
        static final Vclock NONE = new Vclock(0, "clock_gettime (no vclock reader for this layout)",
                "clock_gettime (no vclock reader for this layout)");

        /** The pvclock page's address, or 0 when it may not be read. */
        public long pvclockPage() {
            return (word & VclockCode.PVCLOCK_READABLE) != 0 ? word & -4096L : 0;
        }

        /** vCPU 0's pvclock_vcpu_time_info (32 bytes at the pvclock page), or null when it may not be read. */
        public MemorySegment pvti() {
            return pvclockPage() == 0 ? null : MemorySegment.ofAddress(pvclockPage()).reinterpret(32);
        }
    }

    /**
     * A time namespace's offsets (kernel/time/namespace.c timens_setup_vdso_clock_data), ns, added to the
     * real clock as do_hres_timens does: MONOTONIC and MONOTONIC_RAW by the monotonic offset, BOOTTIME by the
     * boottime one, REALTIME and TAI by none.
     *
     * @param inNamespace true in a time namespace other than the initial one
     * @param monotonic   the monotonic offset, ns
     * @param boottime    the boottime offset, ns
     */
    public record Timens(boolean inNamespace, long monotonic, long boottime) {
        static final Timens NONE = new Timens(false, 0, 0);

        /** The offset of {@code clock} (a counter clock or an AUX clock id), ns. */
        public long offset(int clockId) {
            return switch (clockId) {
                case 1, 4, 6 -> monotonic; // MONOTONIC, MONOTONIC_RAW, MONOTONIC_COARSE
                case 7, 9 -> boottime;     // BOOTTIME, BOOTTIME_ALARM
                default -> 0;
            };
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
        if (!Configuration.PROCESS.exactMode()) {
            return Result.refused("exact mode switched off (" + KernelVdso.PROPERTY + "=off)");
        }
        if (Configuration.PROCESS.kernelChosen()) {
            return Result.refused("the counter is not read by choice (timekeeping4j.counter=kernel)");
        }
        if (Platform.UNSUPPORTED_REASON != null) {
            return Result.refused(Platform.UNSUPPORTED_REASON);
        }
        Arch arch = Arch.of(machine);
        if (arch == null) {
            return Result.refused(Arch.noDescriptor(machine));
        }
        DiscoveryPhases.mark(DiscoveryPhases.SETUP);
        String ns = VvarMapping.timeNamespace();
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
        DiscoveryPhases.mark(DiscoveryPhases.PROC_MAPS);
        // Page 0 first, always backed. Other pages only where the kernel backs them: the data page after the
        // namespace's page inside a time namespace; a vclock page once found backed (PageProbe).
        MemorySegment page0 = MemorySegment.ofAddress(mapping.start()).reinterpret(pageSize);
        Timens timens = Timens.NONE;
        MemorySegment page = page0;
        boolean nsPage = isNamespacePage(page0);
        if (ns.startsWith("other") || nsPage) {
            String where = ns.startsWith("other") ? ns.substring(7) : "page 0 of [vvar] is a namespace page";
            if (arch != Arch.X86_64) {
                return Result.refused("this process runs in a time namespace of its own (" + where + "), and exact"
                        + " mode reads a namespace's pages on x86_64 only (not verified on " + arch.machine()
                        + "): clock_gettime applies its offsets");
            }
            if (!nsPage) {
                return Result.refused("this process runs in a time namespace of its own (" + where + ") but page 0"
                        + " of [vvar] is no namespace page (seq odd, clock_mode VDSO_CLOCKMODE_TIMENS): not trusted");
            }
            if (mapping.vclockStart() == 0 || mapping.size() < 2 * pageSize) {
                return Result.refused("this process runs in a time namespace of its own (" + where + ") with a"
                        + " pre-6.13 [vvar] (no [vvar_vclock]), whose namespace page order exact mode does not"
                        + " read: clock_gettime applies its offsets");
            }
            // 6.13+ (enum vdso_pages): the namespace's page at page 0, the real data one page further
            // (do_hres_timens: vdso_timens_data(vd) = vd + PAGE_SIZE). The offsets sit in the basetime slots
            // of the namespace page's bases (union with struct timens_offset {s64 sec; u64 nsec}); both 6.13+
            // layouts have their base 0 at +0 and basetime at +40.
            timens = new Timens(true, offsetNanos(page0, namespaceSlot(1)), offsetNanos(page0, namespaceSlot(7)));
            page = MemorySegment.ofAddress(mapping.start() + pageSize).reinterpret(pageSize);
        }
        VdsoLayout layout = null;
        VdsoLayout.Recognition rec = null;
        for (int attempt = 0; attempt < 8 && layout == null; attempt++) { // a kernel update may race the checks
            // The page holds the host's clocks: clock_gettime's minus the namespace's offsets.
            VdsoLayout.Expected expected = new VdsoLayout.Expected(
                    ClockGettimeStub.clockGettimeNanos(0) / 1_000_000_000L,
                    Math.floorDiv(ClockGettimeStub.clockGettimeNanos(1) - timens.monotonic(), 1_000_000_000L),
                    Math.floorDiv(ClockGettimeStub.clockGettimeNanos(4) - timens.monotonic(), 1_000_000_000L));
            rec = VdsoLayout.recognise(page, arch, expected);
            layout = rec.layout();
        }
        if (layout == null) {
            return new Result(rec.fitting().isEmpty() ? withoutVdsoClocksource() + "no known vDSO data layout fits [vvar]"
                    + (timens.inNamespace() ? " (the page after the namespace's)" : "") + ": "
                    + String.join("; ", rec.rejected()) : "several layouts fit [vvar]: " + rec.fitting(),
                    null, mapping, null, null, rec.rejected());
        }
        if (timens.inNamespace() && layout.dataOffset() != 0) {
            return Result.refused("a time namespace with layout " + layout + " (data at +" + layout.dataOffset()
                    + "): not read");
        }
        if (timens.inNamespace()) {
            long raw = offsetNanos(page0, layout.timestampOffset(VdsoLayout.CS_RAW, 4));
            if (raw != timens.monotonic()) {
                return Result.refused("the time namespace page's MONOTONIC_RAW offset " + raw + " ns differs from its"
                        + " MONOTONIC offset " + timens.monotonic() + " ns: not a namespace page exact mode knows");
            }
        }
        DiscoveryPhases.mark(DiscoveryPhases.LAYOUT);
        Vclock vclock = vclock(layout, mapping, pageSize);
        int mode = page.get(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED,
                layout.baseOffset(0) + VdsoLayout.CLOCK_MODE);
        if (!arch.vdsoCountsWith(mode) && !servesVclock(vclock, mode)) {
            String why = mode == VclockCode.MODE_PVCLOCK ? "; pvclock: " + vclock.pvclock()
                    : mode == VclockCode.MODE_HVCLOCK ? "; hvclock: " + vclock.hvclock() : "";
            return new Result("the kernel's vDSO does not read the counter itself (clock_mode " + modeName(mode)
                    + why + "): clock_gettime serves", layout, mapping, null, null, rec.rejected(), vclock, timens);
        }
        String refusal = arch.vdsoRefusal(KernelInfo.release());
        if (refusal != null) {
            return new Result(refusal, layout, mapping, null, null, rec.rejected(), vclock, timens);
        }
        DiscoveryPhases.mark(DiscoveryPhases.PAGE_PROBES);
        Stubs.Mapped ordered = VdsoStub.map(layout.algorithm(), true);
        DiscoveryPhases.mark(DiscoveryPhases.MAPPING);
        if (!ordered.ok()) {
            return new Result("the read's machine code cannot run: " + ordered.failure(), layout, mapping, null,
                    null, rec.rejected(), vclock, timens);
        }
        Result r = new Result(null, layout, mapping, page, ordered.handle(), rec.rejected(), vclock, timens);
        String bad = validate(r);
        DiscoveryPhases.mark(DiscoveryPhases.VALIDATION);
        return bad == null ? r : r.refusing(bad);
    }

    /**
     * Whether {@code page0} (page 0 of [vvar], at least its seq and clock_mode) is a time namespace's page: seq odd
     * and clock_mode VDSO_CLOCKMODE_TIMENS, where the vDSO's readers turn to do_hres_timens. Two plain loads.
     */
    static boolean isNamespacePage(MemorySegment page0) {
        return (page0.get(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED, VdsoLayout.SEQ) & 1) != 0
                && page0.get(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED, VdsoLayout.CLOCK_MODE)
                == VdsoLayout.CLOCKMODE_TIMENS;
    }

    /**
     * The offset in a time namespace's page of the struct timens_offset holding {@code clockId}'s offset, or -1 for
     * a clock without one: the basetime slots of the page's bases (both 6.13+ layouts have base 0 at +0 and basetime
     * at +40, 16 bytes a slot), MONOTONIC's slot for MONOTONIC, MONOTONIC_RAW and MONOTONIC_COARSE, BOOTTIME's for
     * BOOTTIME and BOOTTIME_ALARM.
     */
    static long namespaceSlot(int clockId) {
        return switch (clockId) {
            case 1, 4, 6 -> 40 + 16 * 1; // MONOTONIC, MONOTONIC_RAW, MONOTONIC_COARSE
            case 7, 9 -> 40 + 16 * 7;    // BOOTTIME, BOOTTIME_ALARM
            default -> -1;
        };
    }

    /** A struct timens_offset {s64 sec; u64 nsec} at {@code offset} of the namespace page, in ns. */
    static long offsetNanos(MemorySegment nsPage, long offset) {
        long sec = nsPage.get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, offset);
        long nsec = nsPage.get(java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED, offset + 8);
        return sec * 1_000_000_000L + nsec;
    }

    /** Whether the read serves clock_mode {@code mode} through a vclock page now. */
    static boolean servesVclock(Vclock v, int mode) {
        if (mode == VclockCode.MODE_PVCLOCK && v.pvclockPage() != 0) {
            // The stable bit now: without it every read would fall back (and the brackets below would refuse).
            int flags = MemorySegment.ofAddress(v.pvclockPage()).reinterpret(32)
                    .get(java.lang.foreign.ValueLayout.JAVA_BYTE, VclockCode.PV_FLAGS);
            return (flags & VclockCode.PVCLOCK_TSC_STABLE_BIT) != 0;
        }
        return mode == VclockCode.MODE_HVCLOCK && (v.word() & VclockCode.HVCLOCK_READABLE) != 0;
    }

    /**
     * The vclock pages of {@code layout}'s kernels and which the read may load from. Only the layouts with
     * max_cycles (x86 6.10+) have a vclock reader. The pvclock page ([vvar_vclock] page 0 from 6.13, [vvar]
     * page 1 before) is read once the kernel copies from it without a fault (PageProbe), which also maps it;
     * the hvclock page (the next one) is never read on a real kernel: no Hyper-V guest has confirmed the reader.
     */
    private static Vclock vclock(VdsoLayout layout, VvarMapping mapping, long pageSize) {
        if (layout.algorithm() != VdsoAlgorithm.X86_OVERFLOW) {
            return Vclock.NONE;
        }
        String hv = "clock_gettime (the hvclock reader is proven on synthetic pages only: refused until a real"
                + " Hyper-V guest confirms it)";
        long pv = mapping.vclockStart() != 0 ? mapping.vclockStart() : mapping.start() + pageSize;
        long pvEnd = mapping.vclockStart() != 0 ? mapping.vclockEnd() : mapping.end();
        String where = mapping.vclockStart() != 0 ? "[vvar_vclock] page 0" : "[vvar] page 1";
        if (pvEnd - pv < 2 * pageSize) {
            return new Vclock(0, "clock_gettime (no pvclock and hvclock pages at " + where + ")", hv);
        }
        if (!Configuration.PROCESS.vclock()) {
            return new Vclock(0, "clock_gettime (the vclock readers switched off: " + Configuration.VCLOCK + "=off)",
                    hv);
        }
        int errno = PageProbe.copyErrno(pv, 32);
        if (errno != 0) {
            return new Vclock(0, "clock_gettime (the pvclock page, " + where + ", is not backed: kvm-clock not used"
                    + " since boot, or no kvm-clock; errno " + errno + ")", hv);
        }
        return new Vclock(pv | VclockCode.PVCLOCK_READABLE, "the pvclock page (" + where
                + ", vCPU 0's pvclock_vcpu_time_info) with the vDSO's vread_pvclock, while PVCLOCK_TSC_STABLE_BIT"
                + " is set", hv);
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
            if (!readable(id)) {
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

    /**
     * Whether clock_gettime reads clock {@code clockId} now: through the kernel path's stub where it is mapped (its
     * {@link ClockGettimeStub#FAILED} is a failure; no errno-capturing handle bound for the question), else
     * through the errno-capturing call.
     */
    private static boolean readable(int clockId) {
        if (ClockGettimeStub.NANOS != null) {
            try {
                return ClockGettimeStub.nanos(clockId) != ClockGettimeStub.FAILED;
            } catch (Throwable t) {
                throw LinuxTime.rethrow(t);
            }
        }
        return LinuxTime.clockGettimeErrno(clockId) == 0;
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
            VdsoNanos conv = new VdsoNanos();
            long k0 = ClockGettimeStub.clockGettimeNanos(c.clock().id());
            long counter = VdsoStub.readCounterOrdered();
            long k1 = ClockGettimeStub.clockGettimeNanos(c.clock().id());
            if (VdsoFormula.convert(r.layout(), r.page(), r.layout().baseOffset(VdsoLayout.base(c)), c.clock().id(),
                    counter, r.vclock().pvti(), r.timens().offset(c.clock().id()), conv)
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
            long k0 = ClockGettimeStub.clockGettimeNanos(clockId);
            long v = VdsoStub.invoke(r.read(), vc, ts, 0, r.vclock().word());
            long k1 = ClockGettimeStub.clockGettimeNanos(clockId);
            if (v == VdsoStub.FALLBACK) {
                continue;
            }
            v += r.timens().offset(clockId);
            served++;
            if (v - k0 < 0 || k1 - v < 0) {
                return "the vDSO data read of " + name + " left clock_gettime's bracket (" + k0 + " <= " + v + " <= "
                        + k1 + " fails) with layout " + r.layout() + (r.timens().inNamespace() ? " in a time namespace"
                        : "") + ": not trusted";
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

    /** The clocksources whose reads the vDSO serves (a clock_mode other than NONE) on x86_64 and arm64. */
    private static final Set<String> VDSO_CLOCKSOURCES = Set.of("tsc", "kvm-clock",
            "hyperv_clocksource_tsc_page", "arch_sys_counter");

    /**
     * Why no layout can fit, where the kernel's clocksource is one the vDSO does not read (hpet, acpi_pm, ...):
     * with clock_mode NONE the kernel stops updating [vvar]'s high-resolution clocks (update_vsyscall), so their
     * slots hold stale values and recognition by content fails. Empty otherwise.
     */
    private static String withoutVdsoClocksource() {
        String cs = KernelInfo.currentClocksource();
        if (cs == null || cs.isEmpty() || VDSO_CLOCKSOURCES.contains(cs)) {
            return "";
        }
        return "the kernel's clocksource is " + cs + ", which the vDSO does not read (clock_mode NONE): the kernel"
                + " leaves [vvar]'s high-resolution clocks stale, and every read is a system call (exact mode needs"
                + " tsc or kvm-clock when the process starts); ";
    }
}
