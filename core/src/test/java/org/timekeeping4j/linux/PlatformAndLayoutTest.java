package org.timekeeping4j.linux;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PlatformAndLayoutTest {

    @Test
    void shouldRefuseOtherSystemsWithOneClearLine() {
        assertThat(Platform.unsupportedReason("Linux", "amd64")).isNull();
        assertThat(Platform.unsupportedReason("Linux", "aarch64")).isNull();
        assertThat(Platform.unsupportedReason("Mac OS X", "aarch64")).contains("needs Linux").contains("Mac OS X");
        assertThat(Platform.unsupportedReason("Windows 11", "amd64")).contains("needs Linux");
        assertThat(Platform.unsupportedReason("Linux", "riscv64")).contains("x86_64 and aarch64").contains("riscv64");
        assertThat(Platform.unsupportedReason("Linux", "riscv64")).doesNotContain("\n");
    }

    @Test
    void structLayoutsShouldMatchTheLp64Abi() {
        assertThat(LibC.Timespec.LAYOUT.byteSize()).isEqualTo(16);
        assertThat(LibC.Timespec.TV_NSEC).isEqualTo(8);
        assertThat(LibC.Timex.SIZE).isEqualTo(208);
        assertThat(LibC.Timex.FREQ).isEqualTo(16);
        assertThat(LibC.Timex.MAXERROR).isEqualTo(24);
        assertThat(LibC.Timex.ESTERROR).isEqualTo(32);
        assertThat(LibC.Timex.STATUS).isEqualTo(40);
        assertThat(LibC.Timex.TIME).isEqualTo(72);
        assertThat(LibC.Timex.TICK).isEqualTo(88);
        assertThat(LibC.Timex.TAI).isEqualTo(160);
        assertThat(LibC.Utsname.SIZE).isEqualTo(390);
    }

    @Test
    void unameShouldDescribeThisKernel() {
        LinuxTime.Uname u = LinuxTime.uname();
        assertThat(u.sysname()).isEqualTo("Linux");
        assertThat(u.release()).isEqualTo(System.getProperty("os.version"));
        assertThat(u.machine()).isIn("x86_64", "aarch64");
    }

    @Test
    void kernelInfoShouldReadSysfsAndProcfs() {
        assertThat(KernelInfo.availableClocksources()).contains(KernelInfo.currentClocksource());
        assertThat(KernelInfo.cpuFlags()).isNotEmpty();
        assertThat(KernelInfo.cpuFlags(java.nio.file.Path.of("/nonexistent"))).isEmpty();
    }

    @Test
    void errnoNamesShouldBeDescriptive() {
        assertThat(Errno.describe(22)).isEqualTo("EINVAL (Invalid argument)");
        assertThat(Errno.describe(4242)).isEqualTo("errno 4242");
        assertThat(new ErrnoException("clock_gettime(10)", 22).getMessage())
                .isEqualTo("clock_gettime(10) failed: EINVAL (Invalid argument)");
    }
}
