package org.timekeeping4j.simulation.counter;

import java.lang.foreign.MemorySegment;
import org.timekeeping4j.arch.Arch;
import org.timekeeping4j.arch.CounterRead;
import org.timekeeping4j.clocksource.Clocksource;
import org.timekeeping4j.linux.LinuxTime;
import org.timekeeping4j.machine.Stubs;

/**
 * The CPU's own counter read from Java: the x86 TSC or the arm64 virtual counter, through a stub of a few
 * instructions (their bytes: machine.MachineCode).
 *
 * <p>One subclass per {@link CounterRead} (a flavour of reading the counter), each reading through its holder's
 * {@code static final} handle, so that the JIT inlines the downcall: a virtual call on a {@code Clocksource} whose
 * concrete class is one of these is as cheap as the stub itself once the call site is monomorphic. Instances come from
 * {@link CounterSelector}, which only creates flavours whose stub mapped and passed the self-test.
 */
public abstract sealed class HardwareCounter extends Clocksource {

    /** The kernel's ratings: the TSC 300 (desired), the arm64 architected counter 400. Reported, never compared. */
    private static final int TSC_RATING = 300;
    private static final int ARM64_RATING = 400;

    private final CounterRead read;

    private HardwareCounter(CounterRead read, double frequencyHz) {
        super(arch(read).kernelClocksource(), arch(read).counterBits(), frequencyHz,
                arch(read) == Arch.AARCH64 ? ARM64_RATING : TSC_RATING, true, read.isOrdered());
        this.read = read;
    }

    /** The architecture's descriptor of a counter read. */
    private static Arch arch(CounterRead read) {
        return Arch.of(read.arch().machine());
    }

    /** {@return how this counter is read (the instruction sequence and its ordering)} */
    public final CounterRead counterRead() {
        return read;
    }

    /** {@return the read's instruction sequence, e.g. "lfence;rdtsc"} */
    public final String instructions() {
        return read.instructions();
    }

    /**
     * The stub of a counter read, mapped on first use, or why it cannot be.
     *
     * @param read the read
     * @return the mapped stub, or why there is none
     */
    static Stubs.Mapped stub(CounterRead read) {
        return switch (read) {
            case X86_RDTSC -> Stubs.Rdtsc.MAPPED;
            case X86_LFENCE_RDTSC -> Stubs.LfenceRdtsc.MAPPED;
            case X86_RDTSCP -> Stubs.Rdtscp.MAPPED;
            case A64_CNTVCT -> Stubs.Cntvct.MAPPED;
            case A64_ISB_CNTVCT -> Stubs.IsbCntvct.MAPPED;
            case A64_CNTVCTSS -> Stubs.Cntvctss.MAPPED;
        };
    }

    /** A counter read this way at this frequency; its stub must have mapped (see {@link #stub}). */
    static HardwareCounter create(CounterRead read, double frequencyHz) {
        Stubs.Mapped stub = stub(read);
        if (!stub.ok()) {
            throw new IllegalStateException(read + " unavailable: " + stub.failure());
        }
        return switch (read) {
            case X86_RDTSC -> new Rdtsc(frequencyHz);
            case X86_LFENCE_RDTSC -> new LfenceRdtsc(frequencyHz);
            case X86_RDTSCP -> new Rdtscp(frequencyHz);
            case A64_CNTVCT -> new Cntvct(frequencyHz);
            case A64_ISB_CNTVCT -> new IsbCntvct(frequencyHz);
            case A64_CNTVCTSS -> new Cntvctss(frequencyHz);
        };
    }

    @Override
    public String toString() {
        return super.toString() + " via " + read.instructions();
    }

    static final class Rdtsc extends HardwareCounter {
        Rdtsc(double hz) {
            super(CounterRead.X86_RDTSC, hz);
        }

        @Override
        public long read() {
            try {
                return (long) Stubs.Rdtsc.HANDLE.invokeExact();
            } catch (Throwable t) {
                throw LinuxTime.rethrow(t);
            }
        }
    }

    static final class LfenceRdtsc extends HardwareCounter {
        LfenceRdtsc(double hz) {
            super(CounterRead.X86_LFENCE_RDTSC, hz);
        }

        @Override
        public long read() {
            try {
                return (long) Stubs.LfenceRdtsc.HANDLE.invokeExact();
            } catch (Throwable t) {
                throw LinuxTime.rethrow(t);
            }
        }
    }

    static final class Rdtscp extends HardwareCounter {
        Rdtscp(double hz) {
            super(CounterRead.X86_RDTSCP, hz);
        }

        @Override
        public long read() {
            try {
                // The variant that drops TSC_AUX: no store, so no cache line shared between readers.
                return (long) Stubs.RdtscpNoAux.HANDLE.invokeExact();
            } catch (Throwable t) {
                throw LinuxTime.rethrow(t);
            }
        }

        /** Reads the TSC and TSC_AUX (Linux: (node << 12) | cpu) into {@code aux}, a 4-byte segment. */
        public long read(MemorySegment aux) {
            try {
                return (long) Stubs.Rdtscp.HANDLE.invokeExact(aux);
            } catch (Throwable t) {
                throw LinuxTime.rethrow(t);
            }
        }
    }

    // The arm64 generic timer is at least 56 bits wide (64 from Armv8.6); the kernel treats it as 56
    // (Arch.counterBits).
    static final class Cntvct extends HardwareCounter {
        Cntvct(double hz) {
            super(CounterRead.A64_CNTVCT, hz);
        }

        @Override
        public long read() {
            try {
                return (long) Stubs.Cntvct.HANDLE.invokeExact();
            } catch (Throwable t) {
                throw LinuxTime.rethrow(t);
            }
        }
    }

    static final class IsbCntvct extends HardwareCounter {
        IsbCntvct(double hz) {
            super(CounterRead.A64_ISB_CNTVCT, hz);
        }

        @Override
        public long read() {
            try {
                return (long) Stubs.IsbCntvct.HANDLE.invokeExact();
            } catch (Throwable t) {
                throw LinuxTime.rethrow(t);
            }
        }
    }

    static final class Cntvctss extends HardwareCounter {
        Cntvctss(double hz) {
            super(CounterRead.A64_CNTVCTSS, hz);
        }

        @Override
        public long read() {
            try {
                return (long) Stubs.Cntvctss.HANDLE.invokeExact();
            } catch (Throwable t) {
                throw LinuxTime.rethrow(t);
            }
        }
    }
}
