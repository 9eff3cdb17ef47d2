package org.timekeeping4j.machine;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import org.timekeeping4j.arch.Arch;
import org.timekeeping4j.config.Configuration;
import org.timekeeping4j.linux.ErrnoException;
import org.timekeeping4j.linux.ExecutableMemory;
import org.timekeeping4j.linux.Platform;

/**
 * The counter stubs, mapped on first use and bound to critical downcall handles.
 *
 * <p>Each stub lives in its own holder class so that its handle is a {@code static final} field: the JIT
 * treats it as a constant and inlines the downcall into the caller, which is what makes a Java-side
 * counter read cost no more than the bare downcall. A holder whose stub could not be mapped (another
 * architecture, executable memory refused) has a null handle and says why in its {@code MAPPED.failure()};
 * nothing reads a null handle because selection checks {@code MAPPED.ok()} first.
 *
 * <p>Critical downcalls (Linker.Option.critical(false)) skip the thread-state transition: allowed because
 * the stubs neither block, nor call back, nor touch the Java heap.
 */
public final class Stubs {

    /** long (): a counter read, a bound read, one clock's own kernel-path stub. */
    static final FunctionDescriptor LONG_VOID = FunctionDescriptor.of(JAVA_LONG);
    /**
     * long (long, long, long, long): the exact read's arguments (vc, ts, clock id, vclock: addresses as longs, no
     * segment checks), which the kernel path's generic stub takes too, so that a cold JVM links the shape once.
     */
    static final FunctionDescriptor FOUR_LONGS = FunctionDescriptor.of(JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG,
            JAVA_LONG);

    private Stubs() {}

    /** A mapped stub's handle, or why there is none. */
    public record Mapped(MethodHandle handle, String failure) {
        /** {@return whether the stub mapped} */
        public boolean ok() {
            return handle != null;
        }
    }

    public static Mapped map(String name, byte[] code, FunctionDescriptor descriptor, Arch arch) {
        if (Platform.UNSUPPORTED_REASON != null) {
            return new Mapped(null, Platform.UNSUPPORTED_REASON);
        }
        if (Arch.HERE != arch) {
            return new Mapped(null, name + " is " + arch.machine() + " code and this is " + Platform.ARCH);
        }
        if (!Configuration.PROCESS.execmem()) {
            return new Mapped(null, "executable memory refused (" + Configuration.EXECMEM + "=deny)");
        }
        try {
            MemorySegment code1 = ExecutableMemory.map(code);
            return new Mapped(Linker.nativeLinker().downcallHandle(code1, descriptor, Linker.Option.critical(false)),
                    null);
        } catch (ErrnoException e) {
            return new Mapped(null, "executable memory refused: " + e.getMessage()
                    + " (SELinux deny_execmem, PaX MPROTECT or a hardened kernel)");
        }
    }

    public static final class Rdtsc {
        public static final Mapped MAPPED = map("rdtsc", MachineCode.X86_RDTSC, LONG_VOID, Arch.X86_64);
        public static final MethodHandle HANDLE = MAPPED.handle();
    }

    public static final class LfenceRdtsc {
        public static final Mapped MAPPED =
                map("lfence;rdtsc", MachineCode.X86_LFENCE_RDTSC, LONG_VOID, Arch.X86_64);
        public static final MethodHandle HANDLE = MAPPED.handle();
    }

    public static final class Rdtscp {
        public static final Mapped MAPPED = map("rdtscp", MachineCode.X86_RDTSCP,
                FunctionDescriptor.of(JAVA_LONG, ADDRESS), Arch.X86_64);
        public static final MethodHandle HANDLE = MAPPED.handle();
    }

    public static final class RdtscpNoAux {
        public static final Mapped MAPPED = map("rdtscp", MachineCode.X86_RDTSCP_NOAUX, LONG_VOID, Arch.X86_64);
        public static final MethodHandle HANDLE = MAPPED.handle();
    }

    public static final class Cpuid {
        public static final Mapped MAPPED = map("cpuid", MachineCode.X86_CPUID,
                FunctionDescriptor.ofVoid(JAVA_INT, JAVA_INT, ADDRESS), Arch.X86_64);
        public static final MethodHandle HANDLE = MAPPED.handle();
    }

    public static final class Cntvct {
        public static final Mapped MAPPED = map("mrs cntvct_el0", MachineCode.A64_CNTVCT, LONG_VOID, Arch.AARCH64);
        public static final MethodHandle HANDLE = MAPPED.handle();
    }

    public static final class IsbCntvct {
        public static final Mapped MAPPED =
                map("isb;mrs cntvct_el0", MachineCode.A64_ISB_CNTVCT, LONG_VOID, Arch.AARCH64);
        public static final MethodHandle HANDLE = MAPPED.handle();
    }

    /** Maps on any aarch64; only HWCAP2_ECV says it may be called (it is undefined, SIGILL, elsewhere). */
    public static final class Cntvctss {
        public static final Mapped MAPPED =
                map("mrs cntvctss_el0", MachineCode.A64_CNTVCTSS, LONG_VOID, Arch.AARCH64);
        public static final MethodHandle HANDLE = MAPPED.handle();
    }

    public static final class Cntfrq {
        public static final Mapped MAPPED = map("mrs cntfrq_el0", MachineCode.A64_CNTFRQ, LONG_VOID, Arch.AARCH64);
        public static final MethodHandle HANDLE = MAPPED.handle();
    }
}
