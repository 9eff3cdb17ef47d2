# int64_t vdso_read(const vc *rdi, const vdso_timestamp *rsi, uint64_t test_counter rdx)
# The source of the bytes in VdsoCode.java, which AssemblySourcesTest assembles for each layout and slot and
# compares (`as --64 --defsym OVERFLOW=1 -o x.o x86-vdso-read.S && objdump -d -M intel x.o`; SLOT replaced by
# the slot's instructions, as docs/bench/vdso-stub/build.sh does). OVERFLOW selects the struct offsets:
#   OVERFLOW=1: vdso_data 6.10-6.14 / vdso_clock 6.15+ (max_cycles @16, mask @24, mult @32, shift @36)
#   OVERFLOW=0: vdso_data 5.3-6.9 (mask @16, mult @24, shift @28; no max_cycles)
# SLOT: the 10-byte counter slot (edx:eax = counter, rcx clobbered), NOP padding first.
        .intel_syntax noprefix
        .text
        .globl vdso_read
vdso_read:
        mov     r11, rdx                # the test build's counter; unused otherwise
        mov     r9d, 0x100000           # bound on the spins while seq is odd
        # The counter first: an ordered read waits for every older load, so nothing is loaded before it.
1:
        SLOT
        mov     r8d, [rdi]              # seq
        test    r8d, 1
        jnz     5f                      # odd: writer inside, or a time-namespace page
        cmp     dword ptr [rdi+4], 1    # clock_mode == VDSO_CLOCKMODE_TSC
        jne     7f
        shl     rdx, 32
        or      rax, rdx                # cycles
.if OVERFLOW
        sub     rax, [rdi+8]            # delta = cycles - cycle_last (S64_MAX mask: see 3 below)
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
.else
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
.endif
5:      cmp     dword ptr [rdi+4], 0x7fffffff   # VDSO_CLOCKMODE_TIMENS: seq stays odd for good
        je      7f
        pause
        dec     r9d
        jnz     1b
7:      movabs  rax, 0x8000000000000000  # Long.MIN_VALUE: let clock_gettime answer
        ret
