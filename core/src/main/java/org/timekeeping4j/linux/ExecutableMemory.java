package org.timekeeping4j.linux;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Maps a few bytes of machine code as an executable page, W^X: the page is mapped read-write, the code
 * copied in, then the page is mprotect'ed read-execute. It is never writable and executable at once, so
 * kernels and policies that forbid W+X mappings accept it; those that forbid any new executable mapping
 * (SELinux deny_execmem, PaX MPROTECT, some container profiles) refuse the mprotect, which surfaces as an
 * {@link ErrnoException} for the caller to fall back on.
 *
 * <p>Pages are never unmapped once they hold code: a downcall handle may point into them for the rest of
 * the JVM's life. A page whose mprotect failed is unmapped at once.
 */
public final class ExecutableMemory {

    private static final long PAGE = 4096; // x86_64 and aarch64 (4K, 16K and 64K pages: 4096 divides each)

    private ExecutableMemory() {}

    /**
     * Maps {@code code} executable and returns its address.
     *
     * @throws ErrnoException when mmap or mprotect refuses
     */
    public static MemorySegment map(byte[] code) {
        Platform.requireSupported();
        if (code.length == 0 || code.length > PAGE) {
            throw new IllegalArgumentException("code must be 1.." + PAGE + " bytes, got " + code.length);
        }
        // The functions share one descriptor (LibC.SIX_LONGS): what a cold JVM pays per descriptor, paid once.
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(LibC.CAPTURE_STATE);
            long page = LibC.call(LibC.SelfCalls.MMAP, state, 0, PAGE, LibC.PROT_READ | LibC.PROT_WRITE,
                    LibC.MAP_PRIVATE | LibC.MAP_ANONYMOUS, -1, 0);
            if (page == LibC.MAP_FAILED) {
                throw new ErrnoException("mmap(PROT_READ|PROT_WRITE)", LibC.errno(state));
            }
            MemorySegment writable = MemorySegment.ofAddress(page).reinterpret(PAGE);
            MemorySegment.copy(code, 0, writable, ValueLayout.JAVA_BYTE, 0, code.length);
            if (LibC.callInt(LibC.SelfCalls.MPROTECT, state, page, PAGE, LibC.PROT_READ | LibC.PROT_EXEC) != 0) {
                int errno = LibC.errno(state);
                LibC.callInt(LibC.SelfCalls.MUNMAP, state, page, PAGE, 0);
                throw new ErrnoException("mprotect(PROT_READ|PROT_EXEC)", errno);
            }
            return writable.reinterpret(code.length);
        }
    }
}
