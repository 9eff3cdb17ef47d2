# int64_t clock_gettime_nanos(int64_t, int64_t, clockid_t clock_id, int64_t): the source of ClockGettimeStub's
# x86_64 bytes, which AssemblySourcesTest assembles (`as --64 --defsym FUNCTION=<address> -o x.o
# x86-clock-gettime.s`, objcopy -O binary) and compares with ClockGettimeStub.code for the same address.
# FUNCTION: the clock_gettime it calls (int (clockid_t, struct timespec *), the vDSO's or libc's), a 64-bit
# immediate at bytes 11-18. The arguments are the exact read's (VdsoStub: vc, ts, clock id, vclock), so that a
# cold JVM links one downcall shape for both; only the id, the third (edx), is read.
# System V AMD64: the id moves to edi and stays there for the call; rsp is 8 mod 16 on entry, so reserving 24
# bytes aligns the call and holds the 16-byte timespec.
# With --defsym CLOCK=<id>: int64_t clock_gettime_nanos(void), one clock's own stub, which loads the id itself
# (the immediate then sits at bytes 14-21): no argument for the downcall to pass.
        .intel_syntax noprefix
        .text
        .globl clock_gettime_nanos
clock_gettime_nanos:
        .ifdef  CLOCK
        mov     edi, CLOCK              # the clock's own stub: its id
        .else
        mov     edi, edx                # the generic stub: the id, the third argument
        .endif
        sub     rsp, 24
        mov     rsi, rsp                # &timespec
        movabs  rax, FUNCTION
        call    rax
        test    eax, eax
        jnz     1f                      # non-zero: clock_gettime failed
        imul    rax, qword ptr [rsp], 1000000000   # tv_sec * 10^9 (two's-complement wrap, as Java's long)
        add     rax, qword ptr [rsp+8]  # + tv_nsec
        add     rsp, 24
        ret
1:      movabs  rax, 0x8000000000000000 # FAILED: Long.MIN_VALUE
        add     rsp, 24
        ret
