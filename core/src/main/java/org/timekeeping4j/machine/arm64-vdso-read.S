// int64_t vdso_read(const void *vc, const void *ts, uint64_t test_counter): the source of Arm64VdsoCode's words
// (its class comment has the memory-ordering argument). AssemblySourcesTest assembles it for
// each counter slot and compares: `aarch64-linux-gnu-as -o x.o arm64-vdso-read.S`, SLOT replaced by the slot's two
// instructions (production: isb; mrs x5, cntvct_el0), objcopy -O binary.
        .text
        .globl  vdso_read
vdso_read:
        movz    w9, #0x10, lsl #16      // spin budget: 2^20 looks at an odd seq
1:      ldr     w3, [x0]                // retry: seq
        tbnz    w3, #0, 5f              //   odd: a writer inside, or a time-namespace page
        dmb     ishld                   // the loads below come after the seq load (smp_rmb)
        ldr     w4, [x0, #4]            // clock_mode
        sub     w4, w4, #1
        cmp     w4, #1
        b.hi    7f                      // clock_mode - 1 > 1 unsigned: not 1 or 2, fall back
        SLOT
        eor     x6, x5, x5              // 0, computed from the counter
        add     x6, sp, x6              // sp + 0: an address that depends on the counter
        ldr     xzr, [x6]               // a load that cannot issue before the counter is read
        ldp     x7, x8, [x0, #8]        // cycle_last, mask
        ldp     w10, w11, [x0, #24]     // mult, shift (zero-extended)
        ldp     x12, x13, [x1]          // sec, nsec
        sub     x5, x5, x7              // cycles - cycle_last
        and     x5, x5, x8              //   & mask: delta
        madd    x5, x5, x10, x13        // delta * mult + nsec (u64)
        lsr     x5, x5, x11             // >> shift: ns
        dmb     ishld                   // every load above (the dummy one too) before the re-read
        ldr     w14, [x0]               // seq again
        cmp     w14, w3
        b.ne    1b                      // changed: retry
        movz    x15, #0xca00
        movk    x15, #0x3b9a, lsl #16   // 1_000_000_000
        madd    x0, x12, x15, x5        // sec * 1e9 + ns (u64)
        ret
5:      ldr     w4, [x0, #4]            // odd seq: clock_mode
        movn    w6, #0x8000, lsl #16    // 0x7fffffff, VDSO_CLOCKMODE_TIMENS
        cmp     w4, w6
        b.eq    7f                      // a time-namespace page: fall back
        subs    w9, w9, #1
        b.eq    7f                      // the budget spent: fall back
        yield                           // cpu_relax()
        b       1b                      // retry
7:      movz    x0, #0x8000, lsl #48    // Long.MIN_VALUE: call clock_gettime
        ret
