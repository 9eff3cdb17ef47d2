package org.timekeeping4j.linux;

/**
 * The errno values the bindings name in messages, with their symbolic names.
 * Values are the generic Linux ones (asm-generic/errno-base.h, errno.h), the same on x86_64 and aarch64.
 */
public final class Errno {
    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int EINTR = 4;
    public static final int EIO = 5;
    public static final int EBADF = 9;
    public static final int EAGAIN = 11;
    public static final int ENOMEM = 12;
    public static final int EACCES = 13;
    public static final int EFAULT = 14;
    public static final int EBUSY = 16;
    public static final int ENODEV = 19;
    public static final int EINVAL = 22;
    public static final int ENOTTY = 25;
    public static final int ENOSYS = 38;
    public static final int EOPNOTSUPP = 95;
    public static final int ETIMEDOUT = 110;
    public static final int ECANCELED = 125;

    private Errno() {}

    /** "EINVAL (Invalid argument)" for 22; "errno 999" for a value this table does not know. */
    public static String describe(int errno) {
        String name = switch (errno) {
            case EPERM -> "EPERM (Operation not permitted)";
            case ENOENT -> "ENOENT (No such file or directory)";
            case EINTR -> "EINTR (Interrupted system call)";
            case EIO -> "EIO (Input/output error)";
            case EBADF -> "EBADF (Bad file descriptor)";
            case EAGAIN -> "EAGAIN (Resource temporarily unavailable)";
            case ENOMEM -> "ENOMEM (Cannot allocate memory)";
            case EACCES -> "EACCES (Permission denied)";
            case EFAULT -> "EFAULT (Bad address)";
            case EBUSY -> "EBUSY (Device or resource busy)";
            case ENODEV -> "ENODEV (No such device)";
            case EINVAL -> "EINVAL (Invalid argument)";
            case ENOTTY -> "ENOTTY (Inappropriate ioctl for device)";
            case ENOSYS -> "ENOSYS (Function not implemented)";
            case EOPNOTSUPP -> "EOPNOTSUPP (Operation not supported)";
            case ETIMEDOUT -> "ETIMEDOUT (Connection timed out)";
            case ECANCELED -> "ECANCELED (Operation canceled)";
            default -> null;
        };
        return name != null ? name : "errno " + errno;
    }
}
