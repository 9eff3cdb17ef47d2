package org.timekeeping4j.linux;

import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Whether a page of a special mapping ([vvar], [vvar_vclock]) can be loaded from, decided without loading
 * from it: a load from a page whose fault handler finds nothing to map is SIGBUS, which kills the JVM.
 * The kernel copies {@code length} bytes from the address into a pipe (write(2)); its copy_from_user takes
 * the same fault, and a fault the handler cannot serve comes back as EFAULT instead of a signal. A page
 * served once stays mapped for the process (the fault handler inserted it); the kernel backs a vclock page
 * once that vclock was used since boot, and never unbacks it.
 *
 * <p>Measured on Linux 6.18 x86_64 for the pages of [vvar] and [vvar_vclock]: write(2) tells backed from
 * unbacked pages; mincore(2) reports every page of these mappings resident, backed or not, and
 * process_vm_readv(2) fails with EFAULT on every one (get_user_pages refuses VM_IO|VM_PFNMAP).
 */
public final class PageProbe {

    /** O_CLOEXEC (asm-generic/fcntl.h; x86_64 and aarch64). */
    private static final int O_CLOEXEC = 0x80000;
    /** EFAULT. */
    public static final int EFAULT = 14;

    private PageProbe() {}

    /**
     * 0 when the kernel could copy {@code length} bytes (at most a page; fits a pipe's buffer) from
     * {@code address}, which also maps the page for this process; else the errno (EFAULT: not backed).
     *
     * @param address the first byte
     * @param length  bytes, 1 to 4096
     * @return 0, or errno
     */
    public static int copyErrno(long address, int length) {
        Platform.requireSupported();
        if (length < 1 || length > 4096) {
            throw new IllegalArgumentException("length " + length + " is not 1..4096");
        }
        // Through the functions the stubs' mapping calls too (one descriptor, LibC.SIX_LONGS): no handle of its own.
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment capture = arena.allocate(LibC.CAPTURE_STATE);
            MemorySegment fds = arena.allocate(JAVA_INT, 2);
            if (LibC.callInt(LibC.SelfCalls.PIPE2, capture, fds.address(), O_CLOEXEC, 0) != 0) {
                throw new ErrnoException("pipe2", LibC.errno(capture));
            }
            int r = fds.getAtIndex(JAVA_INT, 0);
            int w = fds.getAtIndex(JAVA_INT, 1);
            try {
                long n = LibC.call(LibC.SelfCalls.WRITE, capture, w, address, length, 0, 0, 0);
                return n == length ? 0 : n < 0 ? LibC.errno(capture) : EFAULT; // a short copy: a fault in it
            } finally {
                LibC.callInt(LibC.SelfCalls.CLOSE, capture, r, 0, 0);
                LibC.callInt(LibC.SelfCalls.CLOSE, capture, w, 0, 0);
            }
        }
    }
}
