package org.timekeeping4j.device;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Test writer of a ClockBound v2 segment in the documented format (literal offsets from the protocol
 * table), following the single-writer seqlock: generation odd, body, generation even.
 */
final class ShmWriter implements AutoCloseable {
    private static final VarHandle GEN = JAVA_SHORT.varHandle();

    final Arena arena = Arena.ofShared();
    final MemorySegment seg;
    /** clock_disruption_support as the body writes it: 0, unless a test compares markers with a VMClock page. */
    int disruptionSupport;

    ShmWriter(Path file, long size) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            ch.write(java.nio.ByteBuffer.allocate((int) size));
            seg = ch.map(FileChannel.MapMode.READ_WRITE, 0, size, arena);
        }
    }

    /** A valid header: magic, segsize 80, version 2, generation 2. */
    static ShmWriter valid(Path file) throws IOException {
        ShmWriter w = new ShmWriter(file, 80);
        w.header(0x414D5A4E, 0x43420200, 80, 2, 2);
        return w;
    }

    void header(int magic0, int magic1, int segsize, int version, int generation) {
        seg.set(JAVA_INT, 0, magic0);
        seg.set(JAVA_INT, 4, magic1);
        seg.set(JAVA_INT, 8, segsize);
        seg.set(JAVA_SHORT, 12, (short) version);
        seg.set(JAVA_SHORT, 14, (short) generation);
    }

    int generation() {
        return Short.toUnsignedInt(seg.get(JAVA_SHORT, 14));
    }

    /** One seqlock update of the body. */
    void write(long asOfNanos, long voidAfterNanos, long boundNsec, long marker, int driftPpb, int status) {
        int g = generation();
        // Odd: readers that see it retry. The storeStoreFence keeps the body stores below after this
        // store; pairs with the reader's acquireFence before its second generation load.
        GEN.setOpaque(seg, 14L, (short) (g + 1));
        VarHandle.storeStoreFence();
        body(asOfNanos, voidAfterNanos, boundNsec, marker, driftPpb, status);
        int next = (g + 2) & 0xFFFF;
        // Release: the body is visible before the even generation; pairs with the reader's getAcquire.
        GEN.setRelease(seg, 14L, (short) (next == 0 ? 2 : next));
    }

    void body(long asOfNanos, long voidAfterNanos, long boundNsec, long marker, int driftPpb, int status) {
        seg.set(JAVA_LONG, 16, asOfNanos / 1_000_000_000L);
        seg.set(JAVA_LONG, 24, asOfNanos % 1_000_000_000L);
        seg.set(JAVA_LONG, 32, voidAfterNanos / 1_000_000_000L);
        seg.set(JAVA_LONG, 40, voidAfterNanos % 1_000_000_000L);
        seg.set(JAVA_LONG, 48, boundNsec);
        seg.set(JAVA_LONG, 56, marker);
        seg.set(JAVA_INT, 64, driftPpb);
        seg.set(JAVA_INT, 68, status);
        seg.set(JAVA_BYTE, 72, (byte) disruptionSupport);
    }

    @Override
    public void close() {
        arena.close();
    }
}
