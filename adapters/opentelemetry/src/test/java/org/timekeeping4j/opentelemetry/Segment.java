package org.timekeeping4j.opentelemetry;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.KernelClocks;

/**
 * A ClockBound v2 segment file as the daemon writes it (bound 5 us, drift 15 ppm, void after an hour), whose
 * clock_status the test sets: the real ClockBound reader ({@code BoundedClock.clockBound}) then reports it.
 */
final class Segment implements AutoCloseable {

    static final long BOUND_NANOS = 5_000;
    /** clock_status as the protocol numbers it. */
    static final int UNKNOWN = 0, SYNCHRONIZED = 1, FREE_RUNNING = 2, DISRUPTED = 3;

    private final Arena arena = Arena.ofShared();
    private final MemorySegment s;
    final Path path;

    Segment(Path path) throws IOException {
        this.path = path;
        try (FileChannel ch = FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            ch.write(ByteBuffer.allocate(80));
            s = ch.map(FileChannel.MapMode.READ_WRITE, 0, 80, arena);
        }
        s.set(ValueLayout.JAVA_INT, 0, 0x414D5A4E);
        s.set(ValueLayout.JAVA_INT, 4, 0x43420200);
        s.set(ValueLayout.JAVA_INT, 8, 80);
        s.set(ValueLayout.JAVA_SHORT, 12, (short) 2);
        s.set(ValueLayout.JAVA_SHORT, 14, (short) 2);
        s.set(ValueLayout.JAVA_LONG, 48, BOUND_NANOS);
        s.set(ValueLayout.JAVA_INT, 64, 15_000);
        status(SYNCHRONIZED);
    }

    /** The daemon's update: {@code status}, as of now (MONOTONIC_COARSE, as the daemon stamps it). */
    Segment status(int status) {
        long mono = KernelClocks.nanos(ClockId.MONOTONIC_COARSE);
        s.set(ValueLayout.JAVA_LONG, 16, mono / 1_000_000_000L);
        s.set(ValueLayout.JAVA_LONG, 24, mono % 1_000_000_000L);
        s.set(ValueLayout.JAVA_LONG, 32, mono / 1_000_000_000L + 3600);
        s.set(ValueLayout.JAVA_LONG, 40, 0);
        s.set(ValueLayout.JAVA_INT, 68, status);
        return this;
    }

    /** The layout version (2 is the one the reader takes; another makes each read throw). */
    Segment version(int version) {
        s.set(ValueLayout.JAVA_SHORT, 12, (short) version);
        return this;
    }

    @Override
    public void close() {
        arena.close();
    }
}
