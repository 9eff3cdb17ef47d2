package org.timekeeping4j.clocksource;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The machine code of the counter stubs, byte for byte, with its disassembly. Each stub is a complete
 * function under the platform's C calling convention (System V AMD64: result in rax, arguments in rdi,
 * rsi, rdx; rbx callee-saved. AAPCS64: result in x0), called through an FFM downcall.
 */
final class MachineCode {

    private MachineCode() {}

    // ---- x86_64 ----------------------------------------------------------------------------------------

    /**
     * {@code uint64_t rdtsc(void)}, unordered: the CPU may execute it before earlier instructions retire.
     * <pre>
     *   0f 31          rdtsc              ; edx:eax = TSC
     *   48 c1 e2 20    shl  rdx, 32
     *   48 09 d0       or   rax, rdx
     *   c3             ret
     * </pre>
     */
    static final byte[] X86_RDTSC = bytes(0x0f, 0x31, 0x48, 0xc1, 0xe2, 0x20, 0x48, 0x09, 0xd0, 0xc3);

    /**
     * {@code uint64_t lfence_rdtsc(void)}, ordered: lfence waits until all earlier instructions have
     * completed locally (on AMD with the LFENCE-serialising MSR bit the kernel sets), so the TSC is read
     * after every earlier load. What the vDSO uses (rdtsc_ordered).
     * <pre>
     *   0f ae e8       lfence
     *   0f 31          rdtsc
     *   48 c1 e2 20    shl  rdx, 32
     *   48 09 d0       or   rax, rdx
     *   c3             ret
     * </pre>
     */
    static final byte[] X86_LFENCE_RDTSC =
            bytes(0x0f, 0xae, 0xe8, 0x0f, 0x31, 0x48, 0xc1, 0xe2, 0x20, 0x48, 0x09, 0xd0, 0xc3);

    /**
     * {@code uint64_t rdtscp(uint32_t *aux)}, ordered: rdtscp waits for earlier instructions to execute and
     * also returns IA32_TSC_AUX (Linux stores the CPU and node number there), written to {@code *aux}.
     * ecx is caller-saved, so clobbering it is allowed.
     * <pre>
     *   0f 01 f9       rdtscp             ; edx:eax = TSC, ecx = TSC_AUX
     *   89 0f          mov  [rdi], ecx
     *   48 c1 e2 20    shl  rdx, 32
     *   48 09 d0       or   rax, rdx
     *   c3             ret
     * </pre>
     */
    static final byte[] X86_RDTSCP =
            bytes(0x0f, 0x01, 0xf9, 0x89, 0x0f, 0x48, 0xc1, 0xe2, 0x20, 0x48, 0x09, 0xd0, 0xc3);

    /**
     * {@code uint64_t rdtscp_noaux(void)}: rdtscp for clock reads, dropping TSC_AUX (ecx is caller-saved).
     * Storing TSC_AUX to one shared location from every thread would bounce its cache line between cores.
     * <pre>
     *   0f 01 f9       rdtscp
     *   48 c1 e2 20    shl  rdx, 32
     *   48 09 d0       or   rax, rdx
     *   c3             ret
     * </pre>
     */
    static final byte[] X86_RDTSCP_NOAUX = bytes(0x0f, 0x01, 0xf9, 0x48, 0xc1, 0xe2, 0x20, 0x48, 0x09, 0xd0, 0xc3);

    /**
     * {@code void cpuid(uint32_t leaf, uint32_t subleaf, uint32_t out[4])}: eax, ebx, ecx, edx of the leaf.
     * cpuid overwrites rbx, which the caller expects preserved: it is saved and restored.
     * <pre>
     *   53             push rbx
     *   49 89 d0       mov  r8, rdx        ; out
     *   89 f8          mov  eax, edi       ; leaf
     *   89 f1          mov  ecx, esi       ; subleaf
     *   0f a2          cpuid
     *   41 89 00       mov  [r8], eax
     *   41 89 58 04    mov  [r8+4], ebx
     *   41 89 48 08    mov  [r8+8], ecx
     *   41 89 50 0c    mov  [r8+12], edx
     *   5b             pop  rbx
     *   c3             ret
     * </pre>
     */
    static final byte[] X86_CPUID = bytes(0x53, 0x49, 0x89, 0xd0, 0x89, 0xf8, 0x89, 0xf1, 0x0f, 0xa2,
            0x41, 0x89, 0x00, 0x41, 0x89, 0x58, 0x04, 0x41, 0x89, 0x48, 0x08, 0x41, 0x89, 0x50, 0x0c, 0x5b, 0xc3);

    // ---- aarch64 (little-endian 32-bit words) ----------------------------------------------------------

    /** isb: instruction synchronisation barrier; later instructions are fetched after it completes. */
    static final int A64_ISB = 0xd5033fdf;
    /** ret (x30). */
    static final int A64_RET = 0xd65f03c0;
    /** mrs x0, cntvct_el0: the virtual counter (op0=3, op1=3, CRn=14, CRm=0, op2=2). */
    static final int A64_MRS_X0_CNTVCT = mrs(3, 3, 14, 0, 2, 0);
    /** mrs x0, cntfrq_el0: the counter frequency in Hz as firmware programmed it (op2=0). */
    static final int A64_MRS_X0_CNTFRQ = mrs(3, 3, 14, 0, 0, 0);

    /**
     * {@code uint64_t cntvct_ordered(void)}: isb; mrs x0, cntvct_el0; ret. The isb keeps the counter read
     * from being executed before earlier instructions, as the kernel's __arch_counter_get_cntvct does.
     */
    static final byte[] A64_ISB_CNTVCT = words(A64_ISB, A64_MRS_X0_CNTVCT, A64_RET);
    /** {@code uint64_t cntvct(void)}: mrs x0, cntvct_el0; ret. Unordered. */
    static final byte[] A64_CNTVCT = words(A64_MRS_X0_CNTVCT, A64_RET);
    /** {@code uint64_t cntfrq(void)}: mrs x0, cntfrq_el0; ret. */
    static final byte[] A64_CNTFRQ = words(A64_MRS_X0_CNTFRQ, A64_RET);

    /**
     * Encodes MRS Xt, (op0, op1, CRn, CRm, op2) as the Arm ARM's "System register move" class:
     * {@code 1101 0101 0011 o0 op1 CRn CRm op2 Rt}, with op0 = 2 + o0.
     */
    static int mrs(int op0, int op1, int crn, int crm, int op2, int rt) {
        if (op0 < 2 || op0 > 3 || op1 > 7 || crn > 15 || crm > 15 || op2 > 7 || rt > 31) {
            throw new IllegalArgumentException("field out of range");
        }
        return 0xd5300000 | ((op0 - 2) << 19) | (op1 << 16) | (crn << 12) | (crm << 8) | (op2 << 5) | rt;
    }

    static byte[] bytes(int... values) {
        byte[] b = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            b[i] = (byte) values[i];
        }
        return b;
    }

    static byte[] words(int... words) {
        ByteBuffer buf = ByteBuffer.allocate(words.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (int w : words) {
            buf.putInt(w);
        }
        return buf.array();
    }
}
