# int64_t seqlock_read(const uint64_t *page, const uint64_t *record, uint64_t limit_select): the seqlock read
# as shipped (MachineCode.x86SeqlockRead; the layout: SeqlockStub). Assembled by AssemblySourcesTest, which
# compares the bytes with MachineCode's: `as --64 [--defsym LFENCE=1] x86-seqlock-read.s`, objcopy -O binary.
# LFENCE selects the lfence;rdtsc build; without it, rdtscp. docs/bench/seqlock-stub measures it against
# variants.
.intel_syntax noprefix
.text
    mov    r11, rdx
retry:
.ifdef LFENCE
    lfence
    rdtsc
.else
    rdtscp
.endif
    mov    r8, [rdi]
    and    r8, -2
    mov    r9, [rsi+16]
    mov    r10, [rsi+24]
    cmp    edx, [rsi+4]
    cmovne r9, [rsi+48]
    cmovne r10, [rsi+56]
    mov    rcx, rdx
    shl    rcx, 32
    or     rcx, rax
    mul    qword ptr [rsi+8]
    add    rax, r9
    adc    rdx, r10
    sub    rcx, [rsi]
    cmp    rcx, [rsi+r11+32]
    jae    slow
    mov    rax, rdx
validate:
    cmp    r8, [rdi]
    jne    spin
    ret
slow:
    mov    rax, rcx
    xor    r10d, r10d
    test   rax, rax
    cmovs  rax, r10
    test   r11, r11
    jne    1f
    cmp    rax, [rsi+64]
    ja     stale
1:
    mul    qword ptr [rsi+104]
    add    rax, [rsi+112]
    adc    rdx, 0
    mov    ecx, [rdi+8]
    shrd   rax, rdx, cl
    add    rax, [rsi+72]
    mov    r9, [rsi+96]
    cmp    rax, [rsi+88]
    cmovl  r9, r10
    add    rax, [rsi+80]
    add    rax, r9
    jmp    validate
stale:
    movabs rax, 0x8000000000000000
    jmp    validate
spin:
    pause
    jmp    retry
