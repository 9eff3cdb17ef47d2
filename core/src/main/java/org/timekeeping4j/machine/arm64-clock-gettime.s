// int64_t clock_gettime_nanos(int64_t, int64_t, clockid_t clock_id, int64_t): the source of ClockGettimeStub's
// arm64 words, which AssemblySourcesTest assembles (`aarch64-linux-gnu-as --defsym FUNCTION=<address> -o x.o
// arm64-clock-gettime.s`, objcopy -O binary) and compares with ClockGettimeStub.code for the same address.
// FUNCTION: the clock_gettime it calls (int (clockid_t, struct timespec *), the vDSO's or libc's), a literal
// after the code, loaded pc-relative. The arguments are the exact read's (VdsoStub: vc, ts, clock id, vclock),
// so that a cold JVM links one downcall shape for both; only the id, the third (w2), is read. AAPCS64: the id
// moves to w0 and stays there for the call; a 32-byte frame holds fp, lr and the timespec at sp+16.
// With --defsym CLOCK=<id>: int64_t clock_gettime_nanos(void), one clock's own stub, which loads the id itself.
// Either way the first word sets w0 and the literal sits at 0x40.
        .text
        .globl  clock_gettime_nanos
clock_gettime_nanos:
        .ifdef  CLOCK
        movz    w0, #CLOCK              // the clock's own stub: its id
        .else
        mov     w0, w2                  // the generic stub: the id, the third argument
        .endif
        stp     x29, x30, [sp, #-32]!
        mov     x29, sp
        add     x1, sp, #16             // &timespec
        ldr     x16, 2f                 // the function (the literal at 0x40)
        blr     x16
        cbnz    w0, 1f                  // non-zero: clock_gettime failed
        ldp     x2, x3, [sp, #16]       // tv_sec, tv_nsec
        movz    x4, #0xca00
        movk    x4, #0x3b9a, lsl #16    // 1_000_000_000
        madd    x0, x2, x4, x3          // tv_sec * 10^9 + tv_nsec (u64 wrap)
        ldp     x29, x30, [sp], #32
        ret
1:      movz    x0, #0x8000, lsl #48    // FAILED: Long.MIN_VALUE
        ldp     x29, x30, [sp], #32
        ret
        .balign 8                       // the literal, 8-aligned (at 0x40 already)
2:      .quad   FUNCTION
