package org.timekeeping4j.serving;

import org.timekeeping4j.Diagnostics;
import org.timekeeping4j.disruption.Disruptions;
import org.timekeeping4j.linux.LibC;
import org.timekeeping4j.machine.ClockGettimeStub;
import org.timekeeping4j.machine.VdsoStub;
import org.timekeeping4j.vdso.DiscoveryPhases;
import org.timekeeping4j.vdso.KernelVdso;

/**
 * Chooses the serving mode and hands over to it: the first discovery (on {@link FastPath}'s daemon thread, or the
 * first reader's with discovery=caller) and every re-discovery after a restore. Each ends by publishing one
 * {@link Backend} in {@link FastPath}'s {@code backend} and then settling the stage. Loaded on the discovery
 * thread: nothing here is on a reader's path.
 *
 * <p>Every publication is a volatile store made after what the backend reads through is initialised or retargeted
 * (the stubs mapped, KernelVdso initialised, a new generation's call sites retargeted): a reader that loads the
 * backend finds them ready. The backends are created through factories typed {@code Backend}, so that verifying
 * this class loads none of them (see {@link Backend}). Also where a reader waits for a discovery ({@link #await}):
 * its handler of InterruptedException, here and not in FastPath, keeps that class out of the first read.
 */
final class Handover {

    private Handover() {}

    /**
     * Discovers exact mode: the kernel path's stubs first (every clock exact mode does not serve reads through
     * them), then the kernel's vDSO data. Publishes {@link ExactBackend}, {@link KernelBackend} or
     * {@link JdkBackend}, and ends in {@code EXACT}, {@code KERNEL} or {@code DENIED}.
     */
    static void discover() {
        discover(null);
    }

    /**
     * {@link #discover()}, its reason followed by {@code note} where that is not null.
     *
     * @param note why this discovery runs where it does, for the diagnostics; or null
     */
    static void discover(String note) {
        long t0 = System.nanoTime();
        DiscoveryPhases.begin(FastPath.firstUse());
        String unavailable = LibC.bootstrap();
        DiscoveryPhases.mark(DiscoveryPhases.FFM_BOOTSTRAP);
        if (unavailable != null) {
            FastPath.discoveryNanos = System.nanoTime() - t0;
            if (FastPath.PLATFORM == null) { // Linux, and this module may not call native code
                // One line under 100 columns; the reads of other clocks throw the full reason.
                System.err.println("timekeeping4j: add " + org.timekeeping4j.linux.Platform.nativeAccessFlag()
                        + "; only MONOTONIC, REALTIME serve (JDK)");
            }
            publish(JdkBackend.create()); // the JDK's clocks, for good
            settle(FastPath.PLATFORM == null ? Diagnostics.Stage.DENIED : Diagnostics.Stage.KERNEL,
                    noted(unavailable, note));
            return;
        }
        boolean mapped = false;
        try {
            ClockGettimeStub.clockGettimeNanos(ClockGettimeStub.CLOCK_MONOTONIC); // maps the kernel path's stubs
            mapped = true;
            DiscoveryPhases.mark(DiscoveryPhases.KERNEL_STUBS);
            String why = KernelVdso.reason(); // initialises exact mode: Discovery.run
            DiscoveryPhases.mark(DiscoveryPhases.ENTRIES);
            FastPath.countsCycles |= why == null; // before the backend's store: a reader that sees it sees this
            // Volatile, after the stubs were mapped and KernelVdso finished initialising: a reader that loads the
            // backend finds what it reads through ready.
            publish(why == null ? ExactBackend.create() : KernelBackend.create(false));
            FastPath.discoveryNanos = System.nanoTime() - t0;
            if (why == null) {
                KernelVdso.onMove(new MoveListener("the kernel's time data moved under the process (page 0 of"
                        + " [vvar] is a time namespace's page now: restored from a checkpoint)"));
                CracHook.register(); // where org.crac is present; a CRIU restore is noticed by the reads anyway
            }
            settle(why == null ? Diagnostics.Stage.EXACT : Diagnostics.Stage.KERNEL,
                    noted(why == null ? "exact mode serves" : why, note));
        } catch (Throwable e) {
            // A platform without the stubs (no executable memory, an unsupported architecture): libc's
            // clock_gettime serves; the classes whose initialisation failed are never touched again.
            publish(mapped ? KernelBackend.create(false) : JdkBackend.create()); // as above
            FastPath.discoveryNanos = System.nanoTime() - t0;
            settle(Diagnostics.Stage.KERNEL, noted("the kernel's clock_gettime serves: discovery failed: " + e, note));
        }
    }

    /**
     * Publishes {@code b}, constructed and with what it reads through ready: every read that loads FastPath's
     * backend after this store asks {@code b}. Every discovery's publication goes through here, and so does the
     * jcstress test of it (stress: serving.BackendPublicationTest), so that the test exercises this store.
     */
    static void publish(Backend b) {
        FastPath.backend = b; // volatile store: pairs with the volatile load of backend in each FastPath read
    }

    /** {@code why}, followed by {@code note} where there is one. */
    private static String noted(String why, String note) {
        return note == null ? why : why + "; " + note;
    }

    /** {@link FastPath#await}: waits until no discovery runs, at most {@code timeoutNanos}. */
    static boolean await(long timeoutNanos) {
        long deadline = System.nanoTime() + timeoutNanos;
        synchronized (FastPath.LOCK) {
            while (!FastPath.settled) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                try {
                    FastPath.LOCK.wait(Math.max(1, left / 1_000_000L));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return FastPath.settled;
                }
            }
            return true;
        }
    }

    /** {@link FastPath#awaitSettled}: waits, without a timeout, until no discovery runs. */
    static void awaitSettled() {
        boolean interrupted = false;
        synchronized (FastPath.LOCK) {
            while (!FastPath.settled) {
                try {
                    FastPath.LOCK.wait();
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** {@link FastPath#rediscover}: the kernel's clocks at once, exact mode again when a new discovery validates. */
    static void rediscover(String why) {
        synchronized (FastPath.LOCK) {
            if (!FastPath.settled || !FastPath.countsCycles) {
                return;
            }
            FastPath.settled = false;
            // Volatile: every read that loads the backend after this store goes to the kernel's clocks. Ticks stay
            // counter cycles, as the first discovery decided.
            publish(KernelBackend.create(true));
            FastPath.reason = why + "; discovering again, the kernel's clocks serve meanwhile";
            FastPath.since = System.nanoTime();
            FastPath.stage = Diagnostics.Stage.DISCOVERING;
        }
        Disruptions.seen(VdsoStub.readCounterUnordered());
        try {
            Thread t = new Thread(new Rediscovery(why), "timekeeping4j-rediscovery");
            t.setDaemon(true);
            t.start();
        } catch (Throwable e) { // OutOfMemoryError where no thread is to be had
            // The kernel's clocks published above keep serving, correct; the next rediscover may try again. Not
            // on this thread: it may be a reader in the middle of a read through the sites a rediscovery retargets.
            settle(Diagnostics.Stage.KERNEL, why + "; the kernel's clocks serve: the rediscovery thread could not be"
                    + " started (" + e + ")");
        }
    }

    /** What a read calls when it finds the kernel data moved: starts a re-discovery and returns at once. */
    private static final class MoveListener implements Runnable {
        private final String why;

        MoveListener(String why) {
            this.why = why;
        }

        @Override
        public void run() {
            rediscover(why);
        }
    }

    /** The re-discovery thread's work. */
    private static final class Rediscovery implements Runnable {
        private final String why;

        Rediscovery(String why) {
            this.why = why;
        }

        @Override
        public void run() {
            long t0 = System.nanoTime();
            String refused;
            try {
                refused = KernelVdso.rediscover();
            } catch (RuntimeException | Error e) {
                refused = "discovery failed: " + e;
            }
            if (refused == null) {
                // Volatile, after the sites were retargeted (KernelVdso.rediscover): a reader that loads this
                // backend reads the new data. Where exact mode refused, the kernel backend published at the start
                // keeps serving.
                publish(ExactBackend.create());
            }
            FastPath.discoveryNanos = System.nanoTime() - t0;
            settle(refused == null ? Diagnostics.Stage.EXACT : Diagnostics.Stage.KERNEL, refused == null
                    ? "exact mode serves again (" + why + ")" : refused + " (" + why + ")");
        }
    }

    /** Ends a discovery: its stage and reason, then wakes whoever waits (after the backend was published). */
    private static void settle(Diagnostics.Stage s, String why) {
        DiscoveryPhases.finish();
        synchronized (FastPath.LOCK) {
            FastPath.reason = why;
            FastPath.since = System.nanoTime();
            FastPath.stage = s;
            FastPath.settled = true;
            if (s == Diagnostics.Stage.EXACT && FastPath.historyWanted) { // after the stage's store: see keepHistory
                FastPath.startHistory(); // before the waiters wake: awaitExactMode returns with it kept
            }
            FastPath.LOCK.notifyAll();
        }
    }
}
