package org.timekeeping4j.device;

import java.nio.file.Path;
import java.time.Duration;

/**
 * A clock that answers with an interval containing true time ({@link TimeBounds}), TrueTime-style.
 *
 * <p>Three sources: {@link #clockBound(Path)} reads a ClockBound daemon's shared-memory segment (protocol v2,
 * a seqlock read that allocates nothing; where the segment says clock_disruption_support, a VM disruption the
 * daemon has not yet seen makes the bounds {@link TimeBounds.Status#DISRUPTED} and unbounded);
 * {@link #adjtimex()} derives the bound from the kernel's maxerror; a {@link VmClock} computes it from the
 * hypervisor's VMClock page.
 */
public interface BoundedClock extends AutoCloseable {

    /** Where the ClockBound daemon (v2) publishes its segment. */
    Path CLOCKBOUND_DEFAULT_PATH = Path.of("/var/run/clockbound/shm0");

    /**
     * Fills {@code into} with the bounds now and returns it.
     *
     * @param into the caller's holder, overwritten
     * @return {@code into}
     * @throws IllegalStateException when the source's data is unusable now (a ClockBound causality breach,
     *                               a segment that never settles), naming the source
     */
    TimeBounds now(TimeBounds into);

    /**
     * Fills {@code into} with the bounds on TAI now and returns it: {@link #now}'s bounds plus TAI - UTC from the
     * leap-second list (tzdata's, or the file {@code timekeeping4j.leapSeconds} names), whatever the kernel's TAI
     * offset says (it is 0 until a daemon sets it, and CLOCK_TAI is then UTC). Where the list has expired, the
     * interval widens by a second for each end of June and of December since, where IERS may have inserted or
     * deleted one; where no trusted list gives an offset, the bounds are unbounded and
     * {@link TimeBounds.Status#UNKNOWN} ({@code Clocks.diagnostics().tai()} says why). The list is read again a
     * minute after its last check, by the read that finds it due.
     *
     * @param into the caller's holder, overwritten
     * @return {@code into}
     * @throws IllegalStateException as {@link #now}
     */
    default TimeBounds nowTai(TimeBounds into) {
        now(into);
        TaiOffset tai = TaiOffset.at(into.nanos);
        into.nanos += tai.offsetNanos();
        if (into.status != TimeBounds.Status.SYNCHRONIZED && into.status != TimeBounds.Status.FREE_RUNNING) {
            return into;
        }
        if (!tai.known()) {
            into.earliest = Long.MIN_VALUE;
            into.latest = Long.MAX_VALUE;
            into.status = TimeBounds.Status.UNKNOWN;
            return into;
        }
        into.earliest += tai.offsetNanos() - tai.slackNanos();
        into.latest += tai.offsetNanos() + tai.slackNanos();
        return into;
    }

    /**
     * Waits until the disruption this clock expects ({@link TimeBounds#disruptionExpected()}: a VMClock page's
     * DISRUPTION_SOON or DISRUPTION_IMMINENT flag) differs from {@code seen}, or the timeout passes; returns the
     * expectation then. Pass what the last call returned ({@link TimeBounds.Disruption#NONE} at first), so no change
     * is missed between calls: a migration shows as NONE, SOON, IMMINENT, then NONE again once the page is
     * rewritten after it (with the status {@link TimeBounds.Status#DISRUPTED} from the first read after it).
     * A {@link VmClock}, and {@link #system()} where it watches /dev/vmclock0, look at the page every few ms
     * (no system call but the sleep); any number of threads may wait. A clock that reads no VMClock page expects
     * nothing: it waits out the timeout and returns {@link TimeBounds.Disruption#NONE}.
     *
     * @param seen    the expectation the caller knows of
     * @param timeout how long to wait at most
     * @return the expectation now: other than {@code seen} unless the timeout passed
     * @throws InterruptedException when interrupted while waiting
     * @throws IllegalStateException when the page's seq_count never settles
     */
    default TimeBounds.Disruption awaitDisruption(TimeBounds.Disruption seen, Duration timeout)
            throws InterruptedException {
        long ms;
        try {
            ms = Math.max(0, timeout.toMillis());
        } catch (ArithmeticException e) {
            ms = Long.MAX_VALUE; // longer than any process lives
        }
        if (seen != TimeBounds.Disruption.NONE) {
            return TimeBounds.Disruption.NONE;
        }
        Thread.sleep(ms);
        return TimeBounds.Disruption.NONE;
    }

    /**
     * What this clock reads, in the words {@code tk4j bounds} prints.
     *
     * @return {@code clockbound /var/run/clockbound/shm0}, {@code adjtimex} or {@code vmclock /dev/vmclock0}
     */
    String description();

    @Override
    void close();

    /**
     * The process's bounded clock: the best source present (the ClockBound segment at
     * {@link #CLOCKBOUND_DEFAULT_PATH} where that file exists, else chronyd's tracking report where chronyd answers
     * on 127.0.0.1:323, else a VMClock page's own time where /dev/vmclock0 publishes it with a bound, else the
     * kernel's NTP state; the system property {@code timekeeping4j.bounds} = auto, clockbound, chrony, vmclock or
     * adjtimex chooses; a bad value warns once and is auto), sampled by a daemon thread and served at counter speed: a read allocates nothing and, in exact mode, makes no system call; any number of threads
     * may read it. The bound widens between samples by the source's own growth rule, and a step of REALTIME makes
     * the status {@link TimeBounds.Status#DISRUPTED} until the source has measured since. Where /dev/vmclock0
     * exists and opens, the clock watches that VMClock page too: a read that finds its disruption marker or VM
     * generation changed since the sample (a live migration, a snapshot restored) is DISRUPTED and unbounded,
     * until the source has measured since; and its DISRUPTION_SOON / DISRUPTION_IMMINENT flags reach each read
     * ({@link TimeBounds#disruptionExpected()}) and {@link #awaitDisruption}. One instance per process:
     * {@link #close()} does nothing.
     *
     * @return the process's bounded clock
     * @throws DeviceException when the chosen source is unusable (a segment with the wrong magic, size or version)
     */
    static BoundedClock system() throws DeviceException {
        return ServedBounds.system();
    }

    /**
     * Bounds from adjtimex(2): [real - maxerror, real + maxerror], SYNCHRONIZED while the kernel's clock is in
     * sync, else UNKNOWN.
     *
     * @return the kernel's bounded clock (it holds nothing to close)
     */
    static BoundedClock adjtimex() {
        return new AdjtimexBounds();
    }

    /**
     * The ClockBound daemon's segment at {@code shm}, mapped read-only; its disruption markers are compared with
     * the VMClock page at {@link VmClock#DEFAULT_PATH}.
     *
     * @param shm the segment's path, which must exist
     * @return the segment's bounded clock; close it
     * @throws DeviceException when the segment is missing or unusable (wrong magic, size or version), with the
     *                         errno where a system call refused
     */
    static BoundedClock clockBound(Path shm) throws DeviceException {
        return ClockBound.open(shm);
    }

    /**
     * The ClockBound daemon's segment at {@code shm}, its disruption markers compared with the VMClock page at
     * {@code vmclock} (the page the daemon reads).
     *
     * @param shm     the segment's path, which must exist
     * @param vmclock the VMClock page, opened when the segment first says clock_disruption_support
     * @return the segment's bounded clock; close it
     * @throws DeviceException as {@link #clockBound(Path)}
     */
    static BoundedClock clockBound(Path shm, Path vmclock) throws DeviceException {
        return ClockBound.open(shm, vmclock);
    }
}
