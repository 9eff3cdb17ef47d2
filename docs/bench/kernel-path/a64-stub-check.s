// The aarch64 stub of machine.ClockGettimeStub (its bytes as code(AARCH64, 0) writes them, a64stub.bin) against a fake
// clock_gettime that writes 3 s, 5 ns for clock 7 and returns -22 otherwise: exit 0 when the stub returns
// 3000000005 and then FAILED, and sp and x19 survive; 1 or 2 otherwise. Run by a64-stub-check.sh.
    .section .stub, "awx"
    .balign 16
stub:
    .incbin "a64stub.bin"

    .text
    .globl _start
fake:                       // int fake(clockid_t w0, timespec *x1)
    cmp w0, #7
    b.ne 1f
    mov x2, #3
    str x2, [x1]
    mov x2, #5
    str x2, [x1, #8]
    mov w0, #0
    ret
1:  mov w0, #-22
    ret
_start:
    adr x9, stub
    adr x10, fake
    str x10, [x9, #0x40]
    mov x20, sp
    mov x19, #0x123
    mov w0, #7
    blr x9
    cmp sp, x20             // stack restored
    b.ne bad
    cmp x19, #0x123
    b.ne bad
    ldr x1, =3000000005
    cmp x0, x1
    b.ne bad
    mov w0, #8
    blr x9
    movz x1, #0x8000, lsl #48
    cmp x0, x1
    b.ne bad2
    mov x0, #0
    mov x8, #93
    svc #0
bad:
    mov x0, #1
    mov x8, #93
    svc #0
bad2:
    mov x0, #2
    mov x8, #93
    svc #0
