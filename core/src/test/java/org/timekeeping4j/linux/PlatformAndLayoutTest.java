package org.timekeeping4j.linux;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.timekeeping4j.arch.Arch;
import org.timekeeping4j.machine.ClockGettimeStub;

class PlatformAndLayoutTest {

    @Test
    void shouldRefuseOtherSystemsWithOneClearLine() {
        assertThat(Os.unsupportedReason("Linux", "amd64")).isNull();
        assertThat(Os.unsupportedReason("Linux", "aarch64")).isNull();
        assertThat(Os.unsupportedReason("Mac OS X", "aarch64")).contains("needs Linux").contains("Mac OS X");
        assertThat(Os.unsupportedReason("Windows 11", "amd64")).contains("needs Linux");
        // 32-bit, and 64-bit ABIs whose errno/fcntl/mman values are not the generic ones: refused, naming them.
        for (String osArch : new String[] {"arm", "x86", "sparcv9", "mips64el", "ppc64le", "ppc64"}) {
            assertThat(Os.unsupportedReason("Linux", osArch)).contains("generic ABI").contains(osArch)
                    .contains("x86_64").doesNotContain("\n");
        }
    }

    @Test
    void otherGenericAbiArchitecturesShouldRunTheBindingsWithoutACounter() {
        // The libc bindings hold there; which counter to read is clocksource.Arch's (none: the kernel's).
        for (String osArch : new String[] {"riscv64", "s390x", "loongarch64"}) {
            assertThat(Os.unsupportedReason("Linux", osArch)).as(osArch).isNull();
            assertThat(Os.machine(osArch)).isEqualTo(osArch);
        }
        assertThat(Os.machine("amd64")).isEqualTo("x86_64");
        assertThat(Os.machine("AMD64")).isEqualTo("x86_64");
        assertThat(Os.machine("arm64")).isEqualTo("aarch64");
        assertThat(Os.machine("aarch64")).isEqualTo("aarch64");
    }

    @Test
    void theRawSyscallShouldBeRefusedWhereItsNumberIsNotKnown() {
        assertThat(LinuxTime.syscallClockGettimeErrno(-1, 1)).isEqualTo(Errno.ENOSYS);
        assertThatThrownBy(() -> LinuxTime.syscallClockGettimeNanos(-1, 1))
                .isInstanceOf(UnsupportedOperationException.class)
                .hasMessageContaining("syscall(SYS_clock_gettime) is not made on " + Platform.ARCH)
                .hasMessageContaining("clock_gettime(3)");
        // Here the number is the descriptor's, and the syscall reads CLOCK_MONOTONIC.
        assertThat(LibC.SYS_CLOCK_GETTIME).isPositive();
        long before = ClockGettimeStub.clockGettimeNanos(1);
        assertThat(LinuxTime.syscallClockGettimeNanos(1)).isGreaterThanOrEqualTo(before);
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
