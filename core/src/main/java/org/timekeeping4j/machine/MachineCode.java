package org.timekeeping4j.machine;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.HexFormat;

/**
 * The machine code of the counter stubs, byte for byte. Each stub is a complete function under the platform's C
 * calling convention (System V AMD64: result in rax, arguments in rdi, rsi, rdx; rbx callee-saved. AAPCS64:
 * result in x0), called through an FFM downcall. Sources: x86-counters.s and arm64-counters.s next to this file,
 * one function per constant, which AssemblySourcesTest assembles and compares with these bytes.
 */
final class MachineCode {

    private MachineCode() {}

    // ---- x86_64 ----------------------------------------------------------------------------------------

    /**
     * {@code uint64_t rdtsc(void)}, unordered: the CPU may execute it before earlier instructions retire.
     */
    static final byte[] X86_RDTSC = x86("0f 31 48 c1 e2 20 48 09 d0 c3");

    /**
     * {@code uint64_t lfence_rdtsc(void)}, ordered: lfence waits until all earlier instructions have
     * completed locally (on AMD with the LFENCE-serialising MSR bit the kernel sets), so the TSC is read
     * after every earlier load. What the vDSO uses (rdtsc_ordered).
     */
    static final byte[] X86_LFENCE_RDTSC =
            x86("0f ae e8 0f 31 48 c1 e2 20 48 09 d0 c3");

    /**
     * {@code uint64_t rdtscp(uint32_t *aux)}, ordered: rdtscp waits for earlier instructions to execute and
     * also returns IA32_TSC_AUX (Linux stores the CPU and node number there), written to {@code *aux}.
     * ecx is caller-saved, so clobbering it is allowed.
     */
    static final byte[] X86_RDTSCP =
            x86("0f 01 f9 89 0f 48 c1 e2 20 48 09 d0 c3");

    /**
     * {@code uint64_t rdtscp_noaux(void)}: rdtscp for clock reads, dropping TSC_AUX (ecx is caller-saved).
     * Storing TSC_AUX to one shared location from every thread would bounce its cache line between cores.
     */
    static final byte[] X86_RDTSCP_NOAUX = x86("0f 01 f9 48 c1 e2 20 48 09 d0 c3");

    /**
     * {@code void cpuid(uint32_t leaf, uint32_t subleaf, uint32_t out[4])}: eax, ebx, ecx, edx of the leaf.
     * cpuid overwrites rbx, which the caller expects preserved: it is saved and restored.
     */
    static final byte[] X86_CPUID = x86("53 49 89 d0 89 f8 89 f1 0f a2 41 89 00 41 89 58 04 41 89 48 08 41 89 50 0c"
            + " 5b c3");

    // ---- aarch64 (little-endian 32-bit words) ----------------------------------------------------------

    /** isb: instruction synchronisation barrier; later instructions are fetched after it completes. */
    static final int A64_ISB = 0xd5033fdf;
    /** ret (x30). */
    static final int A64_RET = 0xd65f03c0;
    /** mrs x0, cntvct_el0: the virtual counter (op0=3, op1=3, CRn=14, CRm=0, op2=2). */
    static final int A64_MRS_X0_CNTVCT = mrs(3, 3, 14, 0, 2, 0);
    /** mrs x0, cntvctss_el0: the self-synchronised virtual counter, FEAT_ECV only (op2=6). */
    static final int A64_MRS_X0_CNTVCTSS = mrs(3, 3, 14, 0, 6, 0);
    /** mrs x0, cntfrq_el0: the counter frequency in Hz as firmware programmed it (op2=0). */
    static final int A64_MRS_X0_CNTFRQ = mrs(3, 3, 14, 0, 0, 0);

    /**
     * {@code uint64_t cntvct_ordered(void)}: isb; mrs x0, cntvct_el0; ret. The isb keeps the counter read
     * from being executed before earlier instructions, as the kernel's __arch_counter_get_cntvct does.
     */
    static final byte[] A64_ISB_CNTVCT = arm64(A64_ISB, A64_MRS_X0_CNTVCT, A64_RET);
    /** {@code uint64_t cntvct(void)}: mrs x0, cntvct_el0; ret. Unordered. */
    static final byte[] A64_CNTVCT = arm64(A64_MRS_X0_CNTVCT, A64_RET);
    /**
     * {@code uint64_t cntvctss(void)}: mrs x0, cntvctss_el0; ret. Ordered without an isb: the
     * self-synchronised view is not read speculatively ahead of earlier instructions (FEAT_ECV); the kernel's
     * __arch_counter_get_cntvct patches "isb; mrs cntvct_el0" into "nop; mrs cntvctss_el0" where every CPU
     * has ECV (ARM64_HAS_ECV), which user space sees as HWCAP2_ECV.
     */
    static final byte[] A64_CNTVCTSS = arm64(A64_MRS_X0_CNTVCTSS, A64_RET);
    /** {@code uint64_t cntfrq(void)}: mrs x0, cntfrq_el0; ret. */
    static final byte[] A64_CNTFRQ = arm64(A64_MRS_X0_CNTFRQ, A64_RET);

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

    // ---- the one encoder: x86 code as its bytes in hex (objdump's order), arm64 code as its 32-bit words --------

    /**
     * x86 machine code from its bytes, written as objdump prints them ("0f 01 f9"). Every x86 constant in this
     * package is built here.
     *
     * @param hex the bytes, two hex digits each, separated by single spaces
     * @return the code
     */
    static byte[] x86(String hex) {
        return HexFormat.ofDelimiter(" ").parseHex(hex);
    }

    /**
     * arm64 machine code from its instruction words, stored little-endian as the CPU fetches them. Every arm64
     * constant in this package is built here.
     *
     * @param words the instructions
     * @return the code
     */
    static byte[] arm64(int... words) {
        ByteBuffer buf = ByteBuffer.allocate(words.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (int w : words) {
            buf.putInt(w);
        }
        return buf.array();
    }
}
