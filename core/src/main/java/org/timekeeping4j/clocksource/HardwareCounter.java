package org.timekeeping4j.clocksource;

import java.lang.foreign.MemorySegment;
import org.timekeeping4j.linux.LinuxTime;
import org.timekeeping4j.machine.Stubs;

/**
 * The CPU's own counter read from Java: the x86 TSC or the arm64 virtual counter, through a stub of a few
 * instructions (their bytes: machine.MachineCode).
 *
 * <p>One subclass per flavour, each reading through its holder's {@code static final} handle, so that the
 * JIT inlines the downcall: a virtual call on a {@code Clocksource} whose concrete class is one of these
 * is as cheap as the stub itself once the call site is monomorphic. Instances come from
 * {@link CounterSelector}, which only creates flavours whose stub mapped and passed the self-test.
 */
public abstract sealed class HardwareCounter extends Clocksource {

    /** The kernel's ratings: the TSC 300 (desired), the arm64 architected counter 400. Reported, never compared. */
    private static final int TSC_RATING = 300;
    private static final int ARM64_RATING = 400;

    private final CounterFlavour flavour;

    private HardwareCounter(CounterFlavour flavour, double frequencyHz) {
        super(flavour.arch().kernelClocksource(), flavour.arch().counterBits(), frequencyHz,
                flavour.arch() == CounterArch.AARCH64 ? ARM64_RATING : TSC_RATING, true,
                flavour.isOrdered());
        this.flavour = flavour;
    }

    /** {@return the read flavour} */
    public final CounterFlavour flavour() {
        return flavour;
    }

    /** A counter of this flavour at this frequency; its stub must have mapped (see {@link CounterFlavour#mapped()}). */
    static HardwareCounter create(CounterFlavour flavour, double frequencyHz) {
        if (!flavour.mapped().ok()) {
            throw new IllegalStateException(flavour + " unavailable: " + flavour.mapped().failure());
        }
        return switch (flavour) {
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
        return super.toString() + " via " + flavour.instructions();
    }

    static final class Rdtsc extends HardwareCounter {
        Rdtsc(double hz) {
            super(CounterFlavour.X86_RDTSC, hz);
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
            super(CounterFlavour.X86_LFENCE_RDTSC, hz);
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
            super(CounterFlavour.X86_RDTSCP, hz);
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
    // (CounterArch.counterBits).
    static final class Cntvct extends HardwareCounter {
        Cntvct(double hz) {
            super(CounterFlavour.A64_CNTVCT, hz);
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
            super(CounterFlavour.A64_ISB_CNTVCT, hz);
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
            super(CounterFlavour.A64_CNTVCTSS, hz);
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
