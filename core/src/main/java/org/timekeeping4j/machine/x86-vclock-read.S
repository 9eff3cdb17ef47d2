# int64_t vclock_read(const vc *rdi, const vdso_timestamp *rsi, uint64_t test_counter_or_clock_id rdx,
#                     uint64_t vclock rcx)
# Reference source of the bytes in VclockCode.java: the x86 6.10+ read (X86_OVERFLOW: vdso_data 6.10-6.14,
# vdso_clock 6.15+) that also serves clock_mode PVCLOCK (kvm-clock) and HVCLOCK (Hyper-V TSC page) as the
# vDSO's __arch_get_hw_counter does. vclock (rcx): the pvclock page's address (page aligned; the hvclock page
# is the next page) with bit 0 set when the pvclock page may be read and bit 1 when the hvclock page may; 0:
# neither (then those modes return the fallback value, and no vclock page is ever touched).
# Reassembled and compared with VclockCode by AssemblySourcesTest (SLOT: the counter read, as there).
        .intel_syntax noprefix
        .text
.ifdef BOUND
# One clock's read (VclockCode.x86Bound): its four arguments as immediates (VC, TS, ID, VCLOCK), then the
# read below, as int64_t read(void). A downcall that passes no argument costs measurably less than one that
# passes four (docs/PERFORMANCE.md), and a clock's arguments are constants of the process.
        movabs  rdi, VC                 # the clock's vdso base
        movabs  rsi, TS                 # its vdso_timestamp
        movabs  rdx, ID                 # its clock id (the fallback's)
        movabs  rcx, VCLOCK             # the vclock word
.endif
        .globl vclock_read
vclock_read:
        mov     r11, rdx                # the test build's counter; unused otherwise
        mov     r10, rcx                # the vclock pages and their permission bits
        mov     r9d, 0x100000           # bound on the spins while seq is odd and on vclock retries
1:
        mov     r8d, [rdi]              # seq
        test    r8d, 1
        jnz     5f                      # odd: writer inside, or a time-namespace page
        # The counter after seq, as the vDSO reads it (X86VdsoCode: why).
        SLOT
        cmp     dword ptr [rdi+4], 1    # clock_mode == VDSO_CLOCKMODE_TSC
        jne     10f
        shl     rdx, 32
        or      rax, rdx                # cycles
8:      sub     rax, [rdi+8]            # delta = cycles - cycle_last (S64_MAX mask: see 3 below)
        cmp     rax, [rdi+16]           # delta > max_cycles (unsigned): also negative motion
        ja      3f
6:      mov     ecx, [rdi+32]           # mult
        imul    rax, rcx                # delta * mult (u64)
        add     rax, [rsi+8]            # + basetime.nsec (ns << shift)
        mov     ecx, [rdi+36]           # shift
        shr     rax, cl
2:      imul    rdx, [rsi], 1000000000  # sec * 1e9 (u64)
        add     rax, rdx
        cmp     r8d, [rdi]              # seq unchanged?
        jne     1b
        ret
3:      add     rax, [rdi+8]            # cycles again, now & S64_MAX as 6.10+ __arch_get_hw_counter does
        btr     rax, 63
        sub     rax, [rdi+8]            # the kernel's delta
        cmp     rax, [rdi+16]
        jbe     6b                      # within max_cycles after all (the counter's bit 63 was set)
        bt      rax, 62                 # negative motion (the effective sign bit is 62)
        jc      4f
        btr     rax, 63                 # delta & S64_MAX
        mov     ecx, [rdi+32]
        mul     rcx                     # rdx:rax = delta * mult (128 bits)
        add     rax, [rsi+8]
        adc     rdx, 0
        mov     ecx, [rdi+36]
        shrd    rax, rdx, cl            # (128-bit) >> shift, low word
        jmp     2b
4:      mov     rax, [rsi+8]            # counter behind cycle_last: basetime.nsec >> shift
        mov     ecx, [rdi+36]
        shr     rax, cl
        jmp     2b
5:      cmp     dword ptr [rdi+4], 0x7fffffff   # VDSO_CLOCKMODE_TIMENS: seq stays odd for good
        je      7f
        pause
        dec     r9d
        jnz     1b
# The vDSO would fall back: clock_gettime answers, called from here (one downcall for the caller) where the
# mapping put its address in the immediate below (FALLBACK_FN, patched at map time; 0: return the fallback value
# and let the caller ask). The clock id is the third argument (production flavours read no test counter). The
# answer comes back flagged (bit 63 set; Long.MIN_VALUE stays itself): the caller counts fallbacks, and where
# they are the rule calls clock_gettime itself instead of this code (vdso.ReadEntry).
7:      sub     rsp, 8                  # the fallback as a call, rsp as the caller left it
        call    19f
        add     rsp, 8
        bts     rax, 63                 # flagged
        ret
19:     movabs  rax, 0                  # FALLBACK_FN: int clock_gettime(clockid_t, struct timespec *), or 0
        test    rax, rax
        jz      9f
        sub     rsp, 24                 # a timespec, and rsp 16-byte aligned at the call (no push is open here)
        mov     edi, r11d               # the clock id
        mov     rsi, rsp
        call    rax
        test    eax, eax
        jnz     18f                     # an error: the caller asks again, and reports it
        imul    rax, [rsp], 1000000000  # tv_sec * 1e9 + tv_nsec
        add     rax, [rsp+8]
        add     rsp, 24
        ret
18:     add     rsp, 24
9:      movabs  rax, 0x8000000000000000  # Long.MIN_VALUE: let clock_gettime answer
        ret
# clock_mode is not TSC: edx:eax holds the TSC read after seq; r8d the even seq.
10:     cmp     dword ptr [rdi+4], 2    # VDSO_CLOCKMODE_PVCLOCK
        jne     20f
        test    r10b, 1                 # the pvclock page was found backed: it may be read
        jz      7b
        shl     rdx, 32
        or      rax, rdx                # tsc
        push    rbx
        mov     rbx, r10
        and     rbx, -4096              # the pvclock page: vCPU 0's pvclock_vcpu_time_info at +0
        mov     ecx, [rbx]              # pvclock_read_begin: version & ~1
        and     ecx, -2
        shl     rcx, 32
        or      r8, rcx                 # the version in r8's upper half (the seq's compares read r8d)
        test    byte ptr [rbx+29], 1    # PVCLOCK_TSC_STABLE_BIT
        jz      12f
        sub     rax, [rbx+8]            # delta = tsc - tsc_timestamp
        js      13f                     # the TSC was read before this tsc_timestamp: read it again
        movsx   ecx, byte ptr [rbx+28]  # tsc_shift (s8)
        test    ecx, ecx
        js      14f
        shl     rax, cl
        jmp     15f
14:     neg     ecx
        shr     rax, cl
15:     mov     edx, [rbx+24]           # tsc_to_system_mul (u32)
        mul     rdx                     # rdx:rax = delta * mul (96 bits)
        shrd    rax, rdx, 32            # >> 32, low 64 bits (pvclock_scale_delta)
        add     rax, [rbx+16]           # + system_time
        mov     rcx, r8
        shr     rcx, 32
        cmp     ecx, [rbx]              # pvclock_read_retry: version unchanged?
        pop     rbx
        jne     16f
        jmp     17f
20:     cmp     dword ptr [rdi+4], 3    # VDSO_CLOCKMODE_HVCLOCK
        jne     7b
        test    r10b, 2                 # the hvclock page may be read
        jz      7b
        shl     rdx, 32
        or      rax, rdx                # tsc
        push    rbx
        mov     rbx, r10
        and     rbx, -4096
        mov     ecx, [rbx+4096]         # tsc_sequence; 0: the page is not valid now
        test    ecx, ecx
        jz      12f
        mul     qword ptr [rbx+4104]    # rdx:rax = tsc * tsc_scale (128 bits)
        mov     rax, rdx                # >> 64
        add     rax, [rbx+4112]         # + tsc_offset
        cmp     ecx, [rbx+4096]         # tsc_sequence unchanged?
        pop     rbx
        jne     16f
17:     btr     rax, 63                 # & S64_MAX: the vclock's cycles
        jmp     8b
12:     pop     rbx                     # unstable, or invalid: clock_gettime answers
        jmp     7b
13:     pop     rbx
16:     dec     r9d                     # a vclock writer, or a TSC older than its page: bounded retries
        jnz     1b
        jmp     7b
