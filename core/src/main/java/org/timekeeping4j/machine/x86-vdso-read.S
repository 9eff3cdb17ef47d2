# int64_t vdso_read(const vc *rdi, const vdso_timestamp *rsi, uint64_t test_counter rdx)
# The source of X86VdsoCode's X86_LEGACY read, which AssemblySourcesTest assembles for each slot and compares
# (`as --64 -o x.o x86-vdso-read.S && objdump -d -M intel x.o`; SLOT replaced by the slot's instructions, as
# docs/bench/vdso-stub/build.sh does): vdso_data 5.3-6.9 (mask @16, mult @24, shift @28; no max_cycles).
# The OVERFLOW read (vdso_data 6.10-6.14, vdso_clock 6.15+) is x86-vclock-read.S, which adds the vclock modes.
# SLOT: the 10-byte counter slot (edx:eax = counter, rcx clobbered), NOP padding first.
        .intel_syntax noprefix
        .text
        .globl vdso_read
vdso_read:
        mov     r11, rdx                # the test build's counter; unused otherwise
        mov     r9d, 0x100000           # bound on the spins while seq is odd
1:
        mov     r8d, [rdi]              # seq
        test    r8d, 1
        jnz     5f                      # odd: writer inside, or a time-namespace page
        # The counter after seq, as the vDSO reads it: an ordered read is not performed before the seq load, so
        # a counter value never predates the state the loads below see (X86VdsoCode: why that matters).
        SLOT
        cmp     dword ptr [rdi+4], 1    # clock_mode == VDSO_CLOCKMODE_TSC
        jne     7f
        shl     rdx, 32
        or      rax, rdx                # cycles
        mov     rcx, [rdi+8]            # cycle_last
        xor     edx, edx
        sub     rax, rcx                # delta = cycles - cycle_last
        cmovbe  rax, rdx                # cycles <= cycle_last (unsigned): delta 0
        mov     ecx, [rdi+24]           # mult
        imul    rax, rcx
        add     rax, [rsi+8]
        mov     ecx, [rdi+28]           # shift
        shr     rax, cl
        imul    rdx, [rsi], 1000000000
        add     rax, rdx
        cmp     r8d, [rdi]
        jne     1b
        ret
5:      cmp     dword ptr [rdi+4], 0x7fffffff   # VDSO_CLOCKMODE_TIMENS: seq stays odd for good
        je      7f
        pause
        dec     r9d
        jnz     1b
7:      movabs  rax, 0x8000000000000000  # Long.MIN_VALUE: let clock_gettime answer
        ret
