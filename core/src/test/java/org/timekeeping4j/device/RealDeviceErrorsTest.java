package org.timekeeping4j.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.timekeeping4j.linux.Errno;

/** Error paths through the real kernel: no PTP or PPS hardware needed. */
class RealDeviceErrorsTest {

    @TempDir
    Path dir;

    private static int openDescriptors() {
        String[] fds = new File("/proc/self/fd").list();
        return fds == null ? 0 : fds.length;
    }

    /**
     * The failure of {@code open}; aborts the test where the ioctl never reached a kernel: qemu-user (an
     * emulated aarch64 JVM, scripts/arm64.sh) answers ioctls it does not translate with ENOSYS, which a
     * kernel never returns for /dev/null.
     */
    private static DeviceException failure(ThrowingCallable open) {
        Throwable t = catchThrowable(open);
        assertThat(t).isInstanceOf(DeviceException.class);
        DeviceException e = (DeviceException) t;
        assumeTrue(e.errno() != Errno.ENOSYS, "the ioctl did not reach a kernel (ENOSYS from qemu-user, which "
                + "passes through only the ioctls it knows): needs a real kernel");
        return e;
    }

    @Test
    void devNullIsNoPtpClockEnottyFromTheRealIoctl() {
        assertThat(failure(() -> PtpClock.open(Path.of("/dev/null"))))
                .hasMessage("/dev/null: not a PTP hardware clock (PTP_CLOCK_GETCAPS: ENOTTY)");
    }

    @Test
    void devNullIsNoPpsSource() {
        assertThat(failure(() -> PpsSource.open(Path.of("/dev/null"))).errno()).isEqualTo(Errno.ENOTTY);
    }

    @Test
    void aMissingDeviceIsEnoent() {
        assertThatThrownBy(() -> PtpClock.open(dir.resolve("ptp0")))
                .hasMessage(dir.resolve("ptp0") + ": open failed: ENOENT (No such file or directory)");
        assertThatThrownBy(() -> PpsSource.open(dir.resolve("pps0")))
                .extracting(e -> ((DeviceException) e).errno()).isEqualTo(Errno.ENOENT);
    }

    @Test
    void permissionDeniedIsEacces() throws Exception {
        Path file = Files.createFile(dir.resolve("ptp-locked"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("---------")));
        assumeTrue(!Files.isReadable(file), "running as root: permissions do not apply (the fake covers EACCES)");
        assertThatThrownBy(() -> PtpClock.open(file))
                .extracting(e -> ((DeviceException) e).errno()).isEqualTo(Errno.EACCES);
    }

    @Test
    void failedOpensLeakNoDescriptors() throws Exception {
        Path shm = dir.resolve("bad-shm");
        Files.write(shm, new byte[80]);
        for (int i = 0; i < 5; i++) { // warm up: class loading opens jars once
            attempts(shm);
        }
        int before = openDescriptors();
        for (int i = 0; i < 100; i++) {
            attempts(shm);
        }
        assertThat(openDescriptors() - before).as("descriptors leaked by 300 failed opens").isLessThan(10);
    }

    private void attempts(Path shm) {
        assertThatThrownBy(() -> PtpClock.open(Path.of("/dev/null"))).isInstanceOf(DeviceException.class);
        assertThatThrownBy(() -> PpsSource.open(Path.of("/dev/null"))).isInstanceOf(DeviceException.class);
        assertThatThrownBy(() -> ClockBound.open(shm)).isInstanceOf(DeviceException.class);
    }
}
