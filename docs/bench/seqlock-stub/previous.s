# The seqlock read as of 2026-11-30 11:00 (commit 114152b): shl/or on the value's chain, limit check before it.
.intel_syntax noprefix
.text
    mov    r11, rdx
retry:
    rdtscp
    shl    rdx, 32
    or     rax, rdx
    mov    r8, [rdi]
    test   r8b, 1
    jne    spin
    mov    rcx, rax
    sub    rcx, [rsi]
    cmp    rcx, [rsi+r11+32]
    jae    slow
    mul    qword ptr [rsi+8]
    add    rax, [rsi+16]
    adc    rdx, [rsi+24]
    mov    rax, rdx
validate:
    cmp    r8, [rdi]
    jne    retry
    ret
slow:                       # not taken in the harness (its page's limits are huge)
    xor    eax, eax
    jmp    validate
spin:
    pause
    jmp    retry
