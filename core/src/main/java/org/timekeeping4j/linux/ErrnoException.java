package org.timekeeping4j.linux;

/**
 * A system call or libc function failed; carries the call's name and errno.
 * The public API turns it into the exception a Java caller expects (IllegalArgumentException,
 * UnsupportedOperationException, ...), keeping this one as the cause.
 */
public final class ErrnoException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String function;
    private final int errno;

    public ErrnoException(String function, int errno) {
        super(function + " failed: " + Errno.describe(errno));
        this.function = function;
        this.errno = errno;
    }

    public String function() {
        return function;
    }

    public int errno() {
        return errno;
    }
}
