# current.s with the limit check moved before the mul (program order): the branch's chain then delays it.
.intel_syntax noprefix
.text
    mov    r11, rdx
retry:
    rdtscp
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
    sub    rcx, [rsi]
    cmp    rcx, [rsi+r11+32]
    jae    slow
    mul    qword ptr [rsi+8]
    add    rax, r9
    adc    rdx, r10
    mov    rax, rdx
validate:
    cmp    r8, [rdi]
    jne    spin
    ret
slow:
    xor    eax, eax
    jmp    validate
spin:
    pause
    jmp    retry
