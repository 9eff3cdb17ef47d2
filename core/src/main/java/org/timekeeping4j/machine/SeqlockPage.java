package org.timekeeping4j.machine;

import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.timekeeping4j.machine.SeqlockStub.HEADER_BYTES;
import static org.timekeeping4j.machine.SeqlockStub.LEAP_THRESHOLD;
import static org.timekeeping4j.machine.SeqlockStub.RECORDS;
import static org.timekeeping4j.machine.SeqlockStub.RECORD_BYTES;
import static org.timekeeping4j.machine.SeqlockStub.SEQ;
import static org.timekeeping4j.machine.SeqlockStub.VALID_CYCLES;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import org.timekeeping4j.timekeeper.TimekeeperPage;

/**
 * The native memory of a {@link TimekeeperPage}, laid out as {@link SeqlockStub} reads it: its address, the writer's
 * sequence and its stores. The timekeeper fills the records (timekeeper.PagePublisher) between
 * {@link #beginWrite()} and {@link #endWrite()}.
 *
 * <p>Until a timekeeper publishes into it, every record is stale (zero validity): a fresh read returns
 * {@link SeqlockStub#STALE}. The page's sequence is its own and only grows, whichever timekeeper writes,
 * so a reader can never validate a state against the sequence of another one.
 *
 * <p>Pages live in the global arena: a reader may still be inside the stub with a page's address when the
 * last reference to its timekeeper goes away, and a freed page would be a use after free. A process
 * creates a handful (the fast path's two, and one per hardware timekeeper: the tracker's pair, one more per
 * re-anchor), 704 bytes each.
 */
public final class SeqlockPage implements TimekeeperPage {

    private static final long BYTES = HEADER_BYTES + RECORDS * RECORD_BYTES;
    /** Accessed with setVolatile/setRelease for seq; plain MemorySegment stores for the records. */
    private static final VarHandle LONG = JAVA_LONG.varHandle();

    private final MemorySegment page;
    /** The page's address, passed to the stub (a long: no segment checks on the read path). */
    private final long address;
    /** The writer's copy of the sequence; guarded by the owning TimekeeperWriter's monitor, handed over under this. */
    private long seq;
    private Object owner;

    private SeqlockPage() {
        this.page = Arena.global().allocate(BYTES, 64);
        this.address = page.address();
        for (int p = 0; p < RECORDS; p++) {
            long r = HEADER_BYTES + p * RECORD_BYTES;
            page.set(JAVA_LONG, r + VALID_CYCLES, 0); // stale until published into; limits 0: the slow path says so
            page.set(JAVA_LONG, r + LEAP_THRESHOLD, Long.MAX_VALUE);
        }
    }

    /** {@return a new page in the global arena (never freed), owned by no timekeeper: every record stale} */
    public static SeqlockPage allocate() {
        return new SeqlockPage();
    }

    /** {@return the page's native address (64-byte aligned, fixed for the process's life): the stub's first argument} */
    public long address() {
        return address;
    }

    /**
     * The address of a record: the stub's second argument.
     *
     * @param record a clock's record ({@code timekeeper.CounterClock.record()}), 0 to {@link SeqlockStub#RECORDS} - 1
     * @return the record's native address, {@link #address()} plus a constant offset per clock
     */
    public long recordAddress(int record) {
        return address + HEADER_BYTES + record * RECORD_BYTES;
    }

    /**
     * Makes {@code writer} the page's one writer.
     *
     * @param writer the timekeeper that publishes into the page
     * @throws IllegalStateException if another one does
     */
    public synchronized void attach(Object writer) {
        if (owner != null && owner != writer) {
            throw new IllegalStateException("this timekeeper page is written by another timekeeper; stop its mirroring first");
        }
        owner = writer;
    }

    /**
     * Releases the page if {@code writer} holds it.
     *
     * @param writer the timekeeper that published into it
     */
    public synchronized void detach(Object writer) {
        if (owner == writer) {
            owner = null;
        }
    }

    /**
     * Opens the window: the odd seq is stored before any record store. The caller's full fence right after
     * (TimekeeperWriter.beginWrite()) also orders it before the writer's counter read, as for the ring's seq.
     */
    public void beginWrite() {
        seq |= 1;
        LONG.setVolatile(page, SEQ, seq);
    }

    /**
     * A plain store into the page, inside the window.
     *
     * @param offset the byte offset (SeqlockStub's constants; a record's field at HEADER_BYTES + i * RECORD_BYTES + field)
     * @param value  the value
     */
    public void set(long offset, long value) {
        page.set(JAVA_LONG, offset, value);
    }

    /** Closes the window: publishes the record stores made since {@link #beginWrite()}. */
    public void endWrite() {
        // Release: the record stores before it are visible before the even seq. Pairs with the stub's first seq
        // load, which x86 keeps ahead of its record loads (TSO; see MachineCode.x86SeqlockRead).
        seq = (seq | 1) + 1; // the next even value, after beginWrite's odd one (or directly, for a first state)
        LONG.setRelease(page, SEQ, seq);
    }
}
