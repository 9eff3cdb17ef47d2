package org.timekeeping4j.machine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * Encoding checks that need no assembler (AssemblySourcesTest compares every stub with its source, assembled).
 * The aarch64 stubs cannot run here (x86_64), so their words are checked against the architecture's encoding
 * rules and the reference's published values; the x86 stubs also run in HardwareCounterTest.
 */
class MachineCodeTest {

    @Test
    void aarch64WordsShouldMatchTheirEncodings() {
        assertThat(MachineCode.A64_MRS_X0_CNTVCT).isEqualTo(0xd53be040);
        assertThat(MachineCode.A64_MRS_X0_CNTFRQ).isEqualTo(0xd53be000);
        // GNU as 2.40: "mrs x0, s3_3_c14_c0_6" disassembles as "mrs x0, cntvctss_el0".
        assertThat(MachineCode.A64_MRS_X0_CNTVCTSS).isEqualTo(0xd53be0c0);
        assertThat(MachineCode.A64_CNTVCTSS).containsExactly(MachineCode.arm64(0xd53be0c0, 0xd65f03c0));
        assertThat(MachineCode.A64_ISB).isEqualTo(0xd5033fdf);
        assertThat(MachineCode.A64_RET).isEqualTo(0xd65f03c0);
        // mrs x5, cntvct_el0 differs only in Rt.
        assertThat(MachineCode.mrs(3, 3, 14, 0, 2, 5)).isEqualTo(0xd53be045);
        assertThatThrownBy(() -> MachineCode.mrs(1, 3, 14, 0, 2, 0)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aarch64StubsShouldBeLittleEndianWordsEndingInRet() {
        assertThat(MachineCode.A64_ISB_CNTVCT).containsExactly(
                0xdf, 0x3f, 0x03, 0xd5, 0x40, 0xe0, 0x3b, 0xd5, 0xc0, 0x03, 0x5f, 0xd6);
        assertThat(MachineCode.A64_CNTVCT).hasSize(8);
        assertThat(MachineCode.A64_CNTFRQ).startsWith((byte) 0x00, (byte) 0xe0, (byte) 0x3b, (byte) 0xd5);
    }

    @Test
    void x86StubsShouldBeTheDocumentedBytes() {
        byte[] tail = bytes(0x48, 0xc1, 0xe2, 0x20, 0x48, 0x09, 0xd0, 0xc3); // shl; or; ret
        assertThat(MachineCode.X86_RDTSC).startsWith((byte) 0x0f, (byte) 0x31).endsWith(tail);
        assertThat(MachineCode.X86_LFENCE_RDTSC).startsWith(bytes(0x0f, 0xae, 0xe8, 0x0f, 0x31)).endsWith(tail);
        assertThat(MachineCode.X86_RDTSCP).startsWith(bytes(0x0f, 0x01, 0xf9, 0x89, 0x0f)).endsWith(tail);
        assertThat(MachineCode.X86_RDTSCP_NOAUX).startsWith(bytes(0x0f, 0x01, 0xf9)).endsWith(tail)
                .hasSize(3 + tail.length);
        // cpuid saves and restores rbx (callee-saved in System V).
        assertThat(MachineCode.X86_CPUID[0]).isEqualTo((byte) 0x53);
        assertThat(MachineCode.X86_CPUID).endsWith((byte) 0x5b, (byte) 0xc3);
    }

    /** The test's own encoding of x86 bytes, independent of MachineCode.x86. */
    private static byte[] bytes(int... values) {
        byte[] b = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            b[i] = (byte) values[i];
        }
        return b;
    }

    /**
     * The x86 reads load seq before they read the counter, as the vDSO does: a counter read before the seq load
     * can meet a kernel update published in between and apply its new rate to an older counter value (a read
     * 1.9 us below the clock_gettime read just before it, once, on kvm-clock while steered).
     */
    @Test
    void x86ReadsShouldLoadSeqBeforeTheCounterSlot() {
        byte[] seqLoad = {0x44, (byte) 0x8b, 0x07}; // mov r8d, [rdi]
        for (org.timekeeping4j.arch.VdsoAlgorithm a : new org.timekeeping4j.arch.VdsoAlgorithm[] {
                org.timekeeping4j.arch.VdsoAlgorithm.X86_LEGACY, org.timekeeping4j.arch.VdsoAlgorithm.X86_OVERFLOW}) {
            byte[] code = X86VdsoCode.code(a, X86VdsoCode.Flavour.RDTSCP);
            int seq = indexOf(code, seqLoad);
            assertThat(seq).as("%s: the first seq load", a).isNotNegative();
            assertThat(X86VdsoCode.slotOffset(a)).as("%s: the counter slot after the seq load", a)
                    .isGreaterThan(seq);
        }
    }

    private static int indexOf(byte[] code, byte[] part) {
        outer:
        for (int i = 0; i + part.length <= code.length; i++) {
            for (int j = 0; j < part.length; j++) {
                if (code[i + j] != part[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
