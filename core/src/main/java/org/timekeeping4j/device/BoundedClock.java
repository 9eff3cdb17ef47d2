package org.timekeeping4j.device;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A clock that answers with an interval containing true time ({@link TimeBounds}), TrueTime-style.
 *
 * <p>Two implementations: {@link ClockBound} reads a ClockBound daemon's shared-memory segment;
 * {@link #adjtimex()} derives the bound from the kernel's maxerror.
 */
public interface BoundedClock extends AutoCloseable {

    /**
     * Fills {@code into} with the bounds now and returns it.
     *
     * @param into the caller's holder, overwritten
     * @return {@code into}
     * @throws IllegalStateException when the source's data is unusable now (a ClockBound causality breach,
     *                               a segment that never settles), naming the source
     */
    TimeBounds now(TimeBounds into);

    /** {@return what this clock reads, e.g. {@code clockbound /var/run/clockbound/shm0} or {@code adjtimex}} */
    String description();

    @Override
    void close();

    /**
     * The ClockBound segment at {@link ClockBound#DEFAULT_PATH} when that file exists, else
     * {@link #adjtimex()}.
     *
     * @return the best bounded clock this machine offers
     * @throws DeviceException when the segment exists but is unusable (wrong magic, size or version)
     */
    static BoundedClock system() throws DeviceException {
        return Files.exists(ClockBound.DEFAULT_PATH) ? ClockBound.open(ClockBound.DEFAULT_PATH) : adjtimex();
    }

    /** {@return bounds from adjtimex(2): [real - maxerror, real + maxerror]; see {@link AdjtimexBounds}} */
    static BoundedClock adjtimex() {
        return new AdjtimexBounds();
    }

    /**
     * The ClockBound segment at {@code shm}.
     *
     * @param shm the segment's path, which must exist
     * @return the segment's bounded clock
     * @throws DeviceException when the segment is missing or unusable (wrong magic, size or version)
     */
    static BoundedClock open(Path shm) throws DeviceException {
        return ClockBound.open(shm);
    }
}
