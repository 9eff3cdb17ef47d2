package org.timekeeping4j.device;

/**
 * A clock the kernel serves through an open file descriptor, such as a PTP hardware clock (/dev/ptpN):
 * the clock id is FD_TO_CLOCKID(fd) = ((~fd) &lt;&lt; 3) | 3 (include/linux/posix-timers.h, CLOCKFD = 3).
 *
 * <p>The id is valid only while the descriptor is open; whoever opened it owns its lifetime ({@link PtpClock} opens
 * and closes one, and reads it).
 *
 * @param fd an open file descriptor of a clock device
 */
record DynamicClockId(int fd) {

    private static final int CLOCKFD = 3;

    /**
     * Checks the descriptor.
     *
     * @param fd an open file descriptor of a clock device
     * @throws IllegalArgumentException if {@code fd} is negative
     */
    DynamicClockId {
        if (fd < 0) {
            throw new IllegalArgumentException("file descriptor must be >= 0, got " + fd);
        }
    }

    /** {@return the kernel's clockid_t for this descriptor} */
    int id() {
        return (~fd << 3) | CLOCKFD;
    }

    /**
     * The descriptor a dynamic clock id encodes; the inverse of {@link #id()}.
     *
     * @param clockId a clockid_t that encodes a file descriptor
     * @return the descriptor's clock
     * @throws IllegalArgumentException if {@code clockId} encodes no file descriptor
     */
    static DynamicClockId ofClockId(int clockId) {
        if (clockId >= 0 || (clockId & 7) != CLOCKFD) {
            throw new IllegalArgumentException("clock id " + clockId + " does not encode a file descriptor");
        }
        return new DynamicClockId(~(clockId >> 3));
    }
}
