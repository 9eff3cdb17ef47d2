# Not a correct read: current.s's value chain alone (no seq, no limit), the floor of this approach.
.intel_syntax noprefix
.text
    rdtscp
    mov    r9, [rsi+16]
    mov    r10, [rsi+24]
    cmp    edx, [rsi+4]
    cmovne r9, [rsi+48]
    cmovne r10, [rsi+56]
    mul    qword ptr [rsi+8]
    add    rax, r9
    adc    rdx, r10
    mov    rax, rdx
    ret
