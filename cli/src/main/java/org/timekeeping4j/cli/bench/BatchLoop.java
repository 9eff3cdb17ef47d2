package org.timekeeping4j.cli.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import org.timekeeping4j.cli.path.PathReader;

/**
 * The timed loop of {@code tk4j bench}, one copy per cell.
 *
 * <p>Why copies: HotSpot profiles a call site per method, so one shared loop calling twenty different readers
 * sees a megamorphic {@code readNanos()} and pays an interface dispatch per call, on every path alike. Each cell
 * instead gets this class defined again as a hidden class ({@link #forCell()}): its own loop, its own profile, a
 * monomorphic call site that the JIT inlines, as JMH's generated code would. (Rejected: one loop plus subtracting a
 * measured dispatch cost: the cost depends on the profile and is not constant.)
 */
final class BatchLoop {

    private static final MethodType TIME_BATCH = MethodType.methodType(long.class, PathReader.class, int.class);
    private static final byte[] BYTES = load();

    // Every read is folded in here so that none can be proven useless.
    private static long sink;

    private BatchLoop() {}

    /** Calls {@code reader} {@code batch} times back to back; returns the elapsed ns. */
    static long timeBatch(PathReader reader, int batch) {
        long acc = 0;
        long start = System.nanoTime();
        for (int i = 0; i < batch; i++) {
            acc += reader.readNanos();
        }
        long elapsed = System.nanoTime() - start;
        sink += acc;
        return elapsed;
    }

    /** A fresh copy of {@link #timeBatch} with a call-site profile of its own: (PathReader, int) -> long. */
    static MethodHandle forCell() {
        try {
            MethodHandles.Lookup copy = MethodHandles.lookup().defineHiddenClass(BYTES, true);
            return copy.findStatic(copy.lookupClass(), "timeBatch", TIME_BATCH);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot define a copy of the bench loop", e);
        }
    }

    private static byte[] load() {
        try (InputStream in = BatchLoop.class.getResourceAsStream("BatchLoop.class")) {
            if (in == null) {
                throw new IllegalStateException("BatchLoop.class not found on the class path");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
