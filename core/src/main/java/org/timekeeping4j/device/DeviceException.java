package org.timekeeping4j.device;

import java.io.IOException;
import java.nio.file.Path;
import org.timekeeping4j.linux.Errno;

/**
 * A device or shared-memory segment could not be opened or used. The message is one line naming the
 * path, what failed and, where a system call refused, the errno's symbolic name, e.g.
 * {@code /dev/ptp0: open failed: ENOENT (No such file or directory)}.
 */
public final class DeviceException extends IOException {
    /** Serialisation version (the path is transient: {@code Path} is not serialisable). */
    private static final long serialVersionUID = 1L;

    /** The device or file (transient: {@code Path} is not serialisable). */
    private final transient Path path;
    /** The errno of the refused call, or 0. */
    private final int errno;

    /**
     * A failure a system call reported with {@code errno}.
     *
     * @param path  the device or file
     * @param what  what failed, e.g. "open failed"
     * @param errno the errno the call returned
     */
    public DeviceException(Path path, String what, int errno) {
        super(path + ": " + what + ": " + Errno.describe(errno));
        this.path = path;
        this.errno = errno;
    }

    /**
     * A failure that is no errno (a malformed segment, say).
     *
     * @param path the device or file
     * @param what what is wrong with it
     */
    public DeviceException(Path path, String what) {
        super(path + ": " + what);
        this.path = path;
        this.errno = 0;
    }

    /**
     * A refusal whose {@code what} names the errno itself: "not a PPS source (PPS_GETCAP: ENOTTY)".
     *
     * @param path  the device or file
     * @param errno the errno the call returned
     * @param what  what is wrong, the errno's name in it
     */
    DeviceException(Path path, int errno, String what) {
        super(path + ": " + what);
        this.path = path;
        this.errno = errno;
    }

    /** {@return the device or file} */
    public Path path() {
        return path;
    }

    /** {@return the errno of the refused call, or 0 where the failure is not a system call's} */
    public int errno() {
        return errno;
    }
}
