package org.timekeeping4j.machine;


/**
 * Machine code of the kernel-data read for the x86_64 layouts with max_cycles (vdso_data 6.10-6.14, vdso_clock
 * 6.15+) that serves every clock_mode the vDSO reads in user space: TSC, PVCLOCK (kvm-clock) and HVCLOCK
 * (Hyper-V's TSC page), as {@code int64_t vclock_read(const struct vdso_clock *vc, const struct vdso_timestamp
 * *ts, uint64_t test_counter_or_clock_id, uint64_t vclock)}. Source: x86-vclock-read.S next to this file; the TSC path
 * (bytes 0x00-0xbe) is {@link X86VdsoCode}'s X86_OVERFLOW code with one more register move on entry (see there for
 * the counter slot, the 128-bit path and the memory ordering of the vdso seqlock).
 *
 * <p><b>The vclock argument.</b> The pvclock page's address (vCPU 0's {@code pvclock_vcpu_time_info} at +0;
 * the hvclock page, {@code ms_hyperv_tsc_page}, is the next page), with bit 0 set when the pvclock page may
 * be loaded from and bit 1 when the hvclock page may. A vclock page that the kernel has not backed (that
 * vclock not used since boot) faults with SIGBUS on a load; the caller sets a bit only for a page it has
 * found backed without loading from it. A mode whose bit is clear returns the fallback value, as does
 * clock_mode NONE.
 *
 * <p><b>PVCLOCK</b> (arch/x86/include/asm/vdso/gettimeofday.h vread_pvclock, pvclock.h): under the vdso seq,
 * version = pvti.version &amp; ~1; the stable bit clear: fallback (the vDSO's U64_MAX); delta = tsc -
 * tsc_timestamp; shifted by tsc_shift (left when positive, right when negative); cycles = system_time +
 * ((delta * tsc_to_system_mul) &gt;&gt; 32) on the 96-bit product (mulq; shrd 32, pvclock_scale_delta); version
 * re-read, a change retries; then cycles &amp; S64_MAX through the vdso base's cycle_last, max_cycles, mult and
 * shift exactly as a TSC value. <b>HVCLOCK</b> (include/clocksource/hyperv_timer.h hv_read_tsc_page_tsc):
 * sequence 0: fallback; time = ((tsc * tsc_scale) &gt;&gt; 64) + tsc_offset; a changed sequence retries; then
 * time &amp; S64_MAX as above. Retries are bounded (2^20 with the seq spins), then the fallback value.
 *
 * <p><b>The fallback.</b> Where the vDSO would take the system call (clock_mode NONE, a vclock not readable,
 * the stable bit clear, sequence 0, a seq stuck odd), the code calls clock_gettime itself when mapped with its
 * address ({@link #x86(X86VdsoCode.Flavour, long)}), the clock id in the third argument, a timespec on its own stack:
 * the caller pays one downcall, not this read's and then clock_gettime's. That answer comes back flagged: bit 63
 * set on the time ({@code tv_sec * 10^9 + tv_nsec} is below 2^63 for every time the kernel keeps), so that the
 * caller can count fallbacks without a second call. Mapped without the address, it returns {@code Long.MIN_VALUE}
 * (a flagged 0) and the caller asks clock_gettime.
 *
 * <p>Where fallbacks are the rule (a clock_mode the code does not read: NONE for hpet or acpi_pm), the caller
 * stops entering this code and calls the kernel path's clock_gettime directly until the mode comes back
 * (vdso.ReadEntry): the counter read before the mode check is then not paid on every read.
 *
 * <p><b>One counter read.</b> The TSC is read after the vdso seq, as on the TSC path ({@link X86VdsoCode}: why
 * not before), and before the vclock's version, where the vDSO reads it after: the only state an earlier TSC
 * value can meet that the vDSO's order cannot is a vclock page its writer updated after the counter read: for
 * pvclock a tsc_timestamp beyond the TSC value, which the code detects (a negative delta) and answers with a fresh
 * counter read; for hvclock the new scale and offset applied to a value read just before, which is the continuous
 * reference time the writer publishes.
 *
 * <p><b>Memory ordering, decided here.</b> As for the TSC path: x86 keeps loads in program order (TSO), so
 * the vclock page's loads between its version (sequence) loads see one state of the hypervisor's writer
 * whenever the two loads are equal (pvclock: and even), pairing with the writer's version increments around
 * its stores (the kernel's reader, pvclock_read_begin/retry, uses virt_rmb: a compiler barrier on x86); and
 * all of them sit between the vdso seq loads, pairing with update_vsyscall as on the TSC path. A vclock page
 * is loaded only after clock_mode named it, in program order: no load of a page whose mode is not current.
 */
public final class VclockCode {

    private VclockCode() {}

    /** VDSO_CLOCKMODE_PVCLOCK. */
    public static final int MODE_PVCLOCK = 2;
    /** VDSO_CLOCKMODE_HVCLOCK. */
    public static final int MODE_HVCLOCK = 3;
    /** Bit of the vclock argument: the pvclock page may be read. */
    public static final long PVCLOCK_READABLE = 1;
    /** Bit of the vclock argument: the hvclock page (the next page) may be read. */
    public static final long HVCLOCK_READABLE = 2;
    /** pvclock_vcpu_time_info (packed, 32 bytes): u32 version. */
    public static final int PV_VERSION = 0;
    /** u64 tsc_timestamp. */
    public static final int PV_TSC_TIMESTAMP = 8;
    /** u64 system_time. */
    public static final int PV_SYSTEM_TIME = 16;
    /** u32 tsc_to_system_mul. */
    public static final int PV_MUL = 24;
    /** s8 tsc_shift. */
    public static final int PV_SHIFT = 28;
    /** u8 flags. */
    public static final int PV_FLAGS = 29;
    /** PVCLOCK_TSC_STABLE_BIT. */
    public static final int PVCLOCK_TSC_STABLE_BIT = 1;
    /** ms_hyperv_tsc_page (packed): u32 tsc_sequence. */
    public static final int HV_SEQUENCE = 0;
    /** u64 tsc_scale. */
    public static final int HV_SCALE = 8;
    /** s64 tsc_offset. */
    public static final int HV_OFFSET = 16;

    private static final String CODE = "49 89 d3 49 89 ca 41 b9 00 00 10 00 44 8b 07 41 f7 c0 01 00 00 00 0f 85 88 00 00 00 0f 1f 80 00 00 00 00 "
            + "0f 01 f9 83 7f 04 01 0f 85 db 00 00 00 48 c1 e2 20 48 09 d0 48 2b 47 08 48 3b 47 10 77 21 8b 4f 20 48 0f "
            + "af c1 48 03 46 08 8b 4f 24 48 d3 e8 48 69 16 00 ca 9a 3b 48 01 d0 44 3b 07 75 ab c3 48 03 47 08 48 0f ba "
            + "f0 3f 48 2b 47 08 48 3b 47 10 76 cc 48 0f ba e0 3e 72 1c 48 0f ba f0 3f 8b 4f 20 48 f7 e1 48 03 46 08 48 "
            + "83 d2 00 8b 4f 24 48 0f ad d0 eb ba 48 8b 46 08 8b 4f 24 48 d3 e8 eb ae 81 7f 04 ff ff ff 7f 74 0b f3 90 "
            + "41 ff c9 0f 85 54 ff ff ff 48 83 ec 08 e8 0a 00 00 00 48 83 c4 08 48 0f ba e8 3f c3 48 b8 00 00 00 00 00 "
            + "00 00 00 48 85 c0 74 26 48 83 ec 18 44 89 df 48 89 e6 ff d0 85 c0 75 12 48 69 04 24 00 ca 9a 3b 48 03 44 "
            + "24 08 48 83 c4 18 c3 48 83 c4 18 48 b8 00 00 00 00 00 00 00 80 c3 83 7f 04 02 75 67 41 f6 c2 01 74 a1 48 "
            + "c1 e2 20 48 09 d0 53 4c 89 d3 48 81 e3 00 f0 ff ff 8b 0b 83 e1 fe 48 c1 e1 20 49 09 c8 f6 43 1d 01 0f 84 "
            + "8d 00 00 00 48 2b 43 08 0f 88 89 00 00 00 0f be 4b 1c 85 c9 78 05 48 d3 e0 eb 05 f7 d9 48 d3 e8 8b 53 18 "
            + "48 f7 e2 48 0f ac d0 20 48 03 43 10 4c 89 c1 48 c1 e9 20 3b 0b 5b 75 5d eb 4a 83 7f 04 03 0f 85 36 ff ff "
            + "ff 41 f6 c2 02 0f 84 2c ff ff ff 48 c1 e2 20 48 09 d0 53 4c 89 d3 48 81 e3 00 f0 ff ff 8b 8b 00 10 00 00 "
            + "85 c9 74 24 48 f7 a3 08 10 00 00 48 89 d0 48 03 83 10 10 00 00 3b 8b 00 10 00 00 5b 75 11 48 0f ba f0 3f "
            + "e9 6b fe ff ff 5b e9 e6 fe ff ff 5b 41 ff c9 0f 85 30 fe ff ff e9 d7 fe ff ff";
    private static final int SLOT = 0x1c;
    /** Where the 8-byte immediate of the fallback's clock_gettime address sits (movabs rax at 0xcb). */
    private static final int FALLBACK_FN = 0xcd;

    /**
     * The code with {@code flavour}'s counter read in its slot, returning the fallback value where the vDSO
     * would fall back.
     *
     * @param flavour the counter read to put in the slot
     * @return the function's machine code, a fresh array
     */
    public static byte[] x86(X86VdsoCode.Flavour flavour) {
        return x86(flavour, 0);
    }

    /**
     * The code with {@code flavour}'s counter read in its slot and, where the vDSO would fall back, a call of
     * {@code clockGettime} ({@code int clock_gettime(clockid_t, struct timespec *)}; 0: none) with the third
     * argument as the clock id, whose {@code tv_sec * 10^9 + tv_nsec} it returns (the fallback value when the
     * call fails): a fallback is then one downcall, not the read's and clock_gettime's. Not for the test
     * flavour, whose third argument is the counter.
     *
     * @param flavour      the counter read to put in the slot
     * @param clockGettime the address of clock_gettime, or 0
     * @return the function's machine code, a fresh array
     */
    public static byte[] x86(X86VdsoCode.Flavour flavour, long clockGettime) {
        if (clockGettime != 0 && flavour == X86VdsoCode.Flavour.TEST) {
            throw new IllegalArgumentException("the test flavour's third argument is a counter, not a clock id");
        }
        byte[] code = MachineCode.x86(CODE);
        System.arraycopy(X86VdsoCode.slot(flavour), 0, code, SLOT, X86VdsoCode.SLOT_BYTES);
        java.nio.ByteBuffer.wrap(code).order(java.nio.ByteOrder.LITTLE_ENDIAN).putLong(FALLBACK_FN, clockGettime);
        return code;
    }

    /**
     * One clock's read as {@code int64_t read(void)}: {@code entry} (the read's code) after four movabs that load its arguments (x86-vclock-read.S built with BOUND). A downcall without
     * arguments costs the caller measurably less than one with four, and a clock's arguments are constants.
     *
     * @param entry  the read's code ({@link #x86(X86VdsoCode.Flavour, long)})
     * @param vc     the clock's vdso base (rdi)
     * @param ts     its vdso_timestamp (rsi)
     * @param third  the third argument: the clock id (rdx)
     * @param vclock the vclock word (rcx)
     * @return the function's machine code, a fresh array
     */
    public static byte[] x86Bound(byte[] entry, long vc, long ts, long third, long vclock) {
        java.nio.ByteBuffer code = java.nio.ByteBuffer.allocate(BOUND_PROLOGUE.length * 10 + entry.length)
                .order(java.nio.ByteOrder.LITTLE_ENDIAN);
        long[] values = {vc, ts, third, vclock};
        for (int i = 0; i < values.length; i++) {
            code.put(MachineCode.x86(BOUND_PROLOGUE[i])).putLong(values[i]);
        }
        return code.put(entry).array();
    }

    /** movabs rdi, rsi, rdx, rcx (REX.W B8+r): each followed by its 8-byte immediate. */
    private static final String[] BOUND_PROLOGUE = {"48 bf", "48 be", "48 ba", "48 b9"};

    /** Where the counter slot starts. */
    static int slotOffset() {
        return SLOT;
    }
}
