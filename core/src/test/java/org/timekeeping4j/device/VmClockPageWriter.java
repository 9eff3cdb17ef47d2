package org.timekeeping4j.device;

import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Test writer of a VMClock page in a file, as a hypervisor writes the real one: literal offsets from the Linux
 * 7.x header (vmclock.md's table, not VmClock's constants), little-endian, and the seqlock: seq_count odd, the
 * fields, seq_count even.
 */
final class VmClockPageWriter implements AutoCloseable {
    private static final VarHandle SEQ = JAVA_INT.varHandle();

    final Arena arena = Arena.ofShared();
    final MemorySegment seg;

    /** Over a page mapped elsewhere (the real one, through /dev/mem); closing frees {@code arena}. */
    VmClockPageWriter(MemorySegment page) {
        seg = page;
    }

    VmClockPageWriter(Path file, int bytes) throws IOException {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
            ch.write(ByteBuffer.allocate(bytes));
            seg = ch.map(FileChannel.MapMode.READ_WRITE, 0, bytes, arena);
        }
    }

    /** A 4096-byte page: magic "VCLK", size 4096, version 1, seq_count 0, everything else 0 (as QEMU's). */
    static VmClockPageWriter valid(Path file) throws IOException {
        VmClockPageWriter w = new VmClockPageWriter(file, 4096);
        w.header(0x4b4c4356, 4096, 1);
        return w;
    }

    void header(int magic, int size, int version) {
        seg.set(JAVA_INT, 0x00, magic);
        seg.set(JAVA_INT, 0x04, size);
        seg.set(JAVA_SHORT, 0x08, (short) version);
    }

    int seq() {
        return seg.get(JAVA_INT, 0x0c);
    }

    void seq(int value) {
        seg.set(JAVA_INT, 0x0c, value);
    }

    /** Opens an update: seq_count odd, then a StoreStore fence so no field store below passes it. */
    void begin() {
        SEQ.setOpaque(seg, 0x0cL, seq() + 1);
        // Pairs with the reader's acquireFence before its second seq_count load.
        VarHandle.storeStoreFence();
    }

    /** Closes it: release store of the even seq_count, after every field store; pairs with the reader's acquire. */
    void end() {
        SEQ.setRelease(seg, 0x0cL, seq() + 1);
    }

    /** The counter and time type, status, flags and marker (one update's fields; call between begin and end). */
    void kind(int counterId, int timeType, int status, long flags, long marker) {
        seg.set(JAVA_BYTE, 0x0a, (byte) counterId);
        seg.set(JAVA_BYTE, 0x0b, (byte) timeType);
        seg.set(JAVA_LONG, 0x10, marker);
        seg.set(JAVA_LONG, 0x18, flags);
        seg.set(JAVA_BYTE, 0x22, (byte) status);
    }

    void taiOffset(int seconds) {
        seg.set(JAVA_SHORT, 0x24, (short) seconds);
    }

    void leap(int smearingHint, int indicator) {
        seg.set(JAVA_BYTE, 0x23, (byte) smearingHint);
        seg.set(JAVA_BYTE, 0x26, (byte) indicator);
    }

    /** The counter-to-time relation: shift, counter_value, period, its error rates. */
    void period(int shift, long counterValue, long period, long esterrorRate, long maxerrorRate) {
        seg.set(JAVA_BYTE, 0x27, (byte) shift);
        seg.set(JAVA_LONG, 0x28, counterValue);
        seg.set(JAVA_LONG, 0x30, period);
        seg.set(JAVA_LONG, 0x38, esterrorRate);
        seg.set(JAVA_LONG, 0x40, maxerrorRate);
    }

    /** The time at counter_value and its errors. */
    void time(long sec, long frac, long esterrorNanos, long maxerrorNanos) {
        seg.set(JAVA_LONG, 0x48, sec);
        seg.set(JAVA_LONG, 0x50, frac);
        seg.set(JAVA_LONG, 0x58, esterrorNanos);
        seg.set(JAVA_LONG, 0x60, maxerrorNanos);
    }

    void vmGeneration(long value) {
        seg.set(JAVA_LONG, 0x68, value);
    }

    long marker() {
        return seg.get(JAVA_LONG, 0x10);
    }

    void marker(long value) {
        seg.set(JAVA_LONG, 0x10, value);
    }

    @Override
    public void close() {
        arena.close();
    }
}
