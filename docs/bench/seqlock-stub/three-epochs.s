# Like current.s but with three constants (E, E + 1, E + 2: two cmove pairs) and the limit check before the
# value, the first version tried this session: slower than current.s.
.intel_syntax noprefix
.text
    mov    r11, rdx
retry:
    rdtscp
    mov    r8, [rdi]
    test   r8b, 1
    jne    spin
    mov    r9, [rsi+16]
    mov    r10, [rsi+24]
    cmp    edx, [rsi+48]
    cmove  r9, [rsi+56]
    cmove  r10, [rsi+64]
    cmp    edx, [rsi+52]
    cmove  r9, [rsi+72]
    cmove  r10, [rsi+80]
    mov    rcx, rdx
    shl    rcx, 32
    or     rcx, rax
    sub    rcx, [rsi]
    cmp    rcx, [rsi+r11+32]
    jae    slow
    mul    qword ptr [rsi+8]
    add    rax, r9
    adc    rdx, r10
    mov    rax, rdx
validate:
    cmp    r8, [rdi]
    jne    retry
    ret
slow:
    xor    eax, eax
    jmp    validate
spin:
    pause
    jmp    retry
