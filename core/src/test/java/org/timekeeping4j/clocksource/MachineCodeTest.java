package org.timekeeping4j.clocksource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/**
 * Encoding checks. The aarch64 stubs cannot run here (x86_64), so their words are checked against the
 * architecture's encoding rules and the reference's published values; the x86 stubs also run in
 * HardwareCounterTest.
 */
class MachineCodeTest {

    @Test
    void aarch64WordsShouldMatchTheirEncodings() {
        assertThat(MachineCode.A64_MRS_X0_CNTVCT).isEqualTo(0xd53be040);
        assertThat(MachineCode.A64_MRS_X0_CNTFRQ).isEqualTo(0xd53be000);
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
        byte[] tail = MachineCode.bytes(0x48, 0xc1, 0xe2, 0x20, 0x48, 0x09, 0xd0, 0xc3); // shl; or; ret
        assertThat(MachineCode.X86_RDTSC).startsWith((byte) 0x0f, (byte) 0x31).endsWith(tail);
        assertThat(MachineCode.X86_LFENCE_RDTSC).startsWith(MachineCode.bytes(0x0f, 0xae, 0xe8, 0x0f, 0x31)).endsWith(tail);
        assertThat(MachineCode.X86_RDTSCP).startsWith(MachineCode.bytes(0x0f, 0x01, 0xf9, 0x89, 0x0f)).endsWith(tail);
        assertThat(MachineCode.X86_RDTSCP_NOAUX).startsWith(MachineCode.bytes(0x0f, 0x01, 0xf9)).endsWith(tail)
                .hasSize(3 + tail.length);
        // cpuid saves and restores rbx (callee-saved in System V).
        assertThat(MachineCode.X86_CPUID[0]).isEqualTo((byte) 0x53);
        assertThat(MachineCode.X86_CPUID).endsWith((byte) 0x5b, (byte) 0xc3);
    }

    /**
     * The seqlock read as GNU as 2.x assembled it on this machine from the source in MachineCode's comment
     * (objcopy -O binary), once around rdtscp and once around lfence;rdtsc: the template and its branch
     * fix-up must reproduce both byte for byte.
     */
    @Test
    void seqlockReadShouldBeWhatTheAssemblerProduced() {
        byte[] rdtscp = MachineCode.bytes(0x49, 0x89, 0xd3, 0xeb, 0x02, 0xf3, 0x90, 0x0f, 0x01, 0xf9, 0x48, 0xc1,
                0xe2, 0x20, 0x48, 0x09, 0xd0, 0x4c, 0x8b, 0x07, 0x41, 0xf6, 0xc0, 0x01, 0x75, 0xeb, 0x48, 0x89,
                0xc1, 0x48, 0x2b, 0x0e, 0x4a, 0x3b, 0x4c, 0x1e, 0x20, 0x73, 0x15, 0x48, 0xf7, 0x66, 0x08, 0x48,
                0x03, 0x46, 0x10, 0x48, 0x13, 0x56, 0x18, 0x48, 0x89, 0xd0, 0x4c, 0x3b, 0x07, 0x75, 0xcc, 0xc3,
                0x48, 0x89, 0xc8, 0x45, 0x31, 0xd2, 0x48, 0x85, 0xc0, 0x49, 0x0f, 0x48, 0xc2, 0x4d, 0x85, 0xdb,
                0x75, 0x06, 0x48, 0x3b, 0x46, 0x40, 0x77, 0x2c, 0x48, 0xf7, 0x66, 0x68, 0x48, 0x03, 0x46, 0x70,
                0x48, 0x83, 0xd2, 0x00, 0x8b, 0x4f, 0x08, 0x48, 0x0f, 0xad, 0xd0, 0x48, 0x03, 0x46, 0x48, 0x4c,
                0x8b, 0x4e, 0x60, 0x48, 0x3b, 0x46, 0x58, 0x4d, 0x0f, 0x4c, 0xca, 0x48, 0x03, 0x46, 0x50, 0x4c,
                0x01, 0xc8, 0xeb, 0xb6, 0x48, 0xb8, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x80, 0xeb, 0xaa);
        assertThat(MachineCode.x86SeqlockRead(MachineCode.X86_RDTSCP_INSN)).containsExactly(rdtscp);

        // lfence;rdtsc is two bytes longer: the same code shifted by two, and the two branches back over the
        // counter read (jne 5, jne 7) reach two bytes further: 0xeb -> 0xe9, 0xcc -> 0xca.
        byte[] lfence = new byte[rdtscp.length + 2];
        System.arraycopy(rdtscp, 0, lfence, 0, 7);
        System.arraycopy(MachineCode.X86_LFENCE_RDTSC_INSN, 0, lfence, 7, 5);
        System.arraycopy(rdtscp, 10, lfence, 12, rdtscp.length - 10);
        lfence[0x1b] = (byte) 0xe9;
        lfence[0x3c] = (byte) 0xca;
        assertThat(MachineCode.x86SeqlockRead(MachineCode.X86_LFENCE_RDTSC_INSN)).containsExactly(lfence);
    }
}
