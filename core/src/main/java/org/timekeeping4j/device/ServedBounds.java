package org.timekeeping4j.device;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Clocks;
import org.timekeeping4j.config.Configuration;
import org.timekeeping4j.disruption.Disruptions;
import org.timekeeping4j.linux.TimeNamespace;
import org.timekeeping4j.serving.ClockOffset;
import org.timekeeping4j.linux.TimerFd;
import org.timekeeping4j.vdso.KernelVdso;

/**
 * The process's bounded clock, {@link BoundedClock#system()}: the best source present, sampled off the read path,
 * served at counter speed. A refresher thread samples the source (a ClockBound segment, chronyd, else the
 * kernel's NTP state) into an {@link Anchor}: the bound at one MONOTONIC_RAW instant and the rate at which it
 * grows. A read takes REALTIME ({@link Clocks#nanos}, the one clock read), reckons the anchor's age from it (never
 * short: REALTIME runs at most 10.05% slower than MONOTONIC_RAW, however it is slewed: {@link #AGE_PER_REALTIME}), and
 * widens the anchor's bound by its growth over that age, so the interval is never narrower than the source would
 * give at that instant.
 *
 * <p>Disruptions: a set of REALTIME (a step, a leap second) changes REALTIME - MONOTONIC, which nothing else changes ({@link KernelVdso#realtimeLead}, a few loads of the
 * kernel's data). Each anchor carries the lead it was sampled under, and a read that finds another one after its
 * REALTIME read is DISRUPTED: from the first read after the set, before the refresher has woken. The refresher
 * sees the set too ({@link TimerFd}, and the lead) and publishes DISRUPTED anchors until the source has measured
 * since (each source says from when its bound's measurements date: {@link Anchor#basisRaw}) and has shown that it
 * saw the set: its bound covers the sets' sum, or it measured an offset that large ({@link BoundSource#measured}).
 * Where exact mode does not serve there is no lead: a read then refuses an anchor that REALTIME is behind (a
 * backward step), and a forward step is seen when the refresher wakes.
 *
 * <p>A checkpoint restored (CRIU, into a new time namespace) voids every anchor from before: the process may run
 * on another machine. The first read after it notices (exact mode's read falls back on the namespace's page and
 * notes it in {@link Disruptions}); every anchor carries the count it was sampled under, and a read that finds
 * another is DISRUPTED. The refresher sees it too (the count, or /proc's namespace where exact mode does not
 * serve: {@link TimeNamespace}) and serves nothing for {@link #RESTORE_SETTLE_NANOS}, then samples afresh: the
 * source is this machine's, and REALTIME - MONOTONIC moved by the time frozen without a set.
 *
 * <p>A VMClock page ({@link VmClockWatch}; /dev/vmclock0 where it opens) disrupts the same way: each anchor is
 * published with the page's disruption marker and VM generation at its sample, and a read that finds the page
 * showing others (a live migration, a snapshot restored) is DISRUPTED; the refresher treats the change as a set of
 * REALTIME. Each read also copies the page's DISRUPTION_SOON / DISRUPTION_IMMINENT flags into its holder. Without
 * a page a read does nothing of this.
 *
 * <p>Thread-safe; a read allocates nothing and makes no system call in exact mode. {@link #close()} does nothing:
 * the instance lives as long as the process, its refresher a daemon thread.
 */
final class ServedBounds implements BoundedClock {

    /**
     * How long after the refresher saw a restore every read is DISRUPTED, at least: whichever thread ran first
     * after it, a read within this of the restore never finds a sample, from before it or after.
     */
    static final long RESTORE_SETTLE_NANOS = 1_000_000_000L;
    /** How far behind the sample's REALTIME a read may find REALTIME before it counts as a backward step. */
    static final long STEP_SLACK_NANOS = 100_000L;
    /** The kernel's own growth of maxerror: 500 ppm (kernel/time/ntp.c, MAXFREQ). */
    static final long KERNEL_GROWTH_PPB = 500_000L;
    /**
     * MONOTONIC_RAW ns per REALTIME ns at most: adjtimex lets the tick run 10% slow (900000/HZ us a tick, man 2
     * adjtimex) and the frequency another 500 ppm, whoever slews it.
     */
    static final double AGE_PER_REALTIME = 1.0 / (1.0 - 0.10 - 500e-6);

    /**
     * A source's bound at one instant: true time lay within REALTIME +- {@code boundNanos} at MONOTONIC_RAW
     * {@code rawNanos}, and the bound grows by {@code driftPpb} of the time since. Immutable: published whole.
     *
     * @param rawNanos     MONOTONIC_RAW of the sample, read before the source (so its age is never understated)
     * @param offsetNanos  REALTIME - MONOTONIC_RAW at the sample
     * @param boundNanos   the half-width at the sample; ignored unless the status is SYNCHRONIZED or FREE_RUNNING
     * @param driftPpb     how fast the bound grows, ppb of the elapsed time
     * @param status       the source's status at the sample
     * @param freshNanos   how long after the sample its status holds; then FREE_RUNNING
     * @param voidNanos    how long after the sample the bound means anything; then UNKNOWN
     * @param why          one line: the source and what it said
     * @param basisRaw     MONOTONIC_RAW at or before the oldest measurement the bound rests on (Long.MIN_VALUE:
     *                     not known); a bound whose basis precedes a set of REALTIME is not served
     * @param lead         REALTIME - MONOTONIC when it was sampled ({@link KernelVdso#realtimeLead}), stamped by
     *                     the refresher
     */
    record Anchor(long rawNanos, long offsetNanos, long boundNanos, long driftPpb, TimeBounds.Status status,
                  long freshNanos, long voidNanos, String why, long basisRaw, long lead) {

        /** An anchor whose bound rests on a measurement at its sample, not stamped yet. */
        Anchor(long rawNanos, long offsetNanos, long boundNanos, long driftPpb, TimeBounds.Status status,
               long freshNanos, long voidNanos, String why) {
            this(rawNanos, offsetNanos, boundNanos, driftPpb, status, freshNanos, voidNanos, why, rawNanos,
                    KernelVdso.NO_LEAD);
        }

        /** An anchor that bounds nothing: unknown or disrupted, with why. */
        static Anchor unbounded(long rawNanos, TimeBounds.Status status, String why) {
            return new Anchor(rawNanos, 0, 0, 0, status, Long.MAX_VALUE, Long.MAX_VALUE, why);
        }

        /** {@return this anchor with its bound's basis at {@code raw}} */
        Anchor basedAt(long raw) {
            return new Anchor(rawNanos, offsetNanos, boundNanos, driftPpb, status, freshNanos, voidNanos, why, raw,
                    lead);
        }

        /** {@return this anchor with the lead it was sampled under} */
        Anchor stamped(long realtimeLead) {
            return new Anchor(rawNanos, offsetNanos, boundNanos, driftPpb, status, freshNanos, voidNanos, why,
                    basisRaw, realtimeLead);
        }


        boolean bounds() {
            return status == TimeBounds.Status.SYNCHRONIZED || status == TimeBounds.Status.FREE_RUNNING;
        }
    }

    private final BoundSource source;
    /** Why this source: the configuration, or what auto found. */
    private final String choice;
    /** The latest anchor as reads use it; null before the first sample. Volatile: see {@link #publish}. */
    private volatile Served served;
    /** MONOTONIC_RAW when the refresher last saw REALTIME set; refresher's own. */
    private long setAtRaw = Long.MIN_VALUE;
    /** The lead of the refresher's last sample; refresher's own. */
    private long lastLead = KernelVdso.NO_LEAD;
    private boolean leadSeen;
    /** The lead measured at the last sample ({@link #leadNow}); refresher's own. */
    private long lastMeasuredLead;
    /**
     * The sets of REALTIME since the source last served, summed, ns: what the source has not yet shown it measured
     * (chronyd's filter can hide a set for seconds while it keeps reporting updates with a small offset, measured
     * in the chrony lab); refresher's own.
     */
    private long pendingSetNanos;
    /** Measures the lead where exact mode does not serve; refresher's own. */
    private final ClockOffset leadOffset = new ClockOffset();
    /** The bracket of the last measured lead, and of the one before; refresher's own. */
    private long leadWidth;
    private long lastLeadWidth;
    /** {@link Disruptions#count()} at the refresher's last look, before its sample; refresher's own. */
    private long disruptionsSeen = Disruptions.count();
    /** MONOTONIC_RAW when the refresher last saw a restore; refresher's own. */
    private long restoredAtRaw = Long.MIN_VALUE;
    /** The time namespace at the refresher's last look ({@link TimeNamespace#identity}); refresher's own. */
    private String namespace;
    /** What disrupted REALTIME last (a set, the VMClock page), for why(); refresher's own. */
    private String setBy = "REALTIME was set";
    /** The VMClock page watched; null where none (then reads do no page work at all). */
    private final VmClockWatch watch;
    /** Why the page is watched or not: the diagnostics line's end. */
    private final String watchNote;

    ServedBounds(BoundSource source) {
        this(source, "given");
    }

    ServedBounds(BoundSource source, String choice) {
        this(source, choice, null, "no VMClock page watched");
    }

    ServedBounds(BoundSource source, String choice, VmClockWatch watch, String watchNote) {
        this.source = source;
        this.choice = choice;
        this.watch = watch;
        this.watchNote = watchNote;
    }

    /** {@return whether reads look at a VMClock page} */
    boolean watches() {
        return watch != null;
    }

    /** The process's instance: the configured source, sampled once before the first read and then refreshed. */
    static ServedBounds system() throws DeviceException {
        ServedBounds b = Holder.INSTANCE;
        if (b == null) {
            throw Holder.FAILURE;
        }
        return b;
    }

    private static final class Holder {
        static final DeviceException FAILURE;
        static final ServedBounds INSTANCE;

        static {
            ServedBounds b = null;
            DeviceException failure = null;
            try {
                StringBuilder why = new StringBuilder();
                StringBuilder note = new StringBuilder();
                VmClockWatch watch = VmClockWatch.open(VmClock.DEFAULT_PATH, note);
                b = new ServedBounds(chosen(Configuration.PROCESS.bounds(), BoundedClock.CLOCKBOUND_DEFAULT_PATH,
                        Chronyd.local(), watch == null ? null : watch.clock(), why), why.toString(), watch,
                        note.toString());
                org.timekeeping4j.serving.ServingReport.reportBounds(b::report);
                b.refresh(false);
                b.startRefresher();
            } catch (DeviceException e) {
                failure = e;
            }
            INSTANCE = b;
            FAILURE = failure;
        }
    }

    /**
     * The source {@code choice} names. auto takes the ClockBound segment where {@code shm} exists, else
     * {@code chronyd} where it answers a tracking request, else the VMClock page's own time where {@code vmclock}
     * (null where no page opened) publishes it with a maximum error, else adjtimex.
     */
    static BoundSource chosen(String choice, Path shm, Chronyd chronyd, VmClock vmclock, StringBuilder why)
            throws DeviceException {
        if (!choice.equals("auto")) {
            why.append(Configuration.BOUNDS).append('=').append(choice);
        }
        return switch (choice) {
            case "clockbound" -> new ClockBoundSource(ClockBound.open(shm));
            case "chrony" -> new ChronydSource(chronyd);
            case "vmclock" -> new VmClockSource(vmclock != null ? vmclock : VmClock.open(VmClock.DEFAULT_PATH));
            case "adjtimex" -> new AdjtimexSource();
            default -> {
                if (Files.exists(shm)) {
                    why.append("auto: the ClockBound segment ").append(shm).append(" exists");
                    yield new ClockBoundSource(ClockBound.open(shm));
                }
                why.append("auto: no ClockBound segment at ").append(shm).append(", chronyd ");
                String silent = silence(chronyd);
                if (silent == null) {
                    why.append("answered on ").append(chronyd.endpoint());
                    yield new ChronydSource(chronyd);
                }
                why.append("did not answer on ").append(chronyd.endpoint()).append(" (").append(silent).append(')');
                if (vmclock != null) {
                    String not = VmClockSource.serves(vmclock);
                    if (not == null) {
                        why.append(", ").append(vmclock.description()).append(" publishes its time with a bound");
                        yield new VmClockSource(vmclock);
                    }
                    why.append(", ").append(vmclock.description()).append(" serves no bounded time (").append(not)
                            .append(')');
                }
                yield new AdjtimexSource();
            }
        };
    }

    /** {@return null where chronyd answers a tracking request, else why not} */
    private static String silence(Chronyd chronyd) {
        try {
            chronyd.tracking();
            return null;
        } catch (IOException e) {
            return e.getMessage(); // nothing listens (an ICMP refusal comes at once), or it does not answer us
        }
    }

    /** {@return the line of {@code Diagnostics.bounds()}: the source, why it was chosen, what it said last} */
    String report() {
        return source.description() + " (" + choice + "): " + why() + "; " + watchNote;
    }

    @Override
    public TimeBounds now(TimeBounds into) {
        Served a = served; // volatile load: pairs with the volatile store in publish(); the anchor is whole
        long real = Clocks.nanos(ClockId.REALTIME);
        if (into.source != this) { // a reference store costs a GC barrier; a reused holder has it already
            into.source = this;
        }
        into.nanos = real;
        if (watch != null && pageMoved(a, into)) { // without a page, this final field's null test is all
            return unbounded(into, TimeBounds.Status.DISRUPTED); // the page's marker or generation moved
        }
        if (a == null) {
            return unbounded(into, TimeBounds.Status.UNKNOWN);
        }
        // After the read: a restore (or a VMClock disruption) the library saw before it counts here. A volatile
        // load that pairs with Disruptions.seen's store, made before the read that noticed returned.
        if (Disruptions.count() != a.disruptions) {
            return unbounded(into, TimeBounds.Status.DISRUPTED); // sampled before the disruption
        }
        // After the read: a set of REALTIME, or a restore into another time namespace, before it shows as a new
        // lead. Only where the refresher found one (it initialised the kernel's data then; a reader never
        // discovers it here).
        if (a.lead != KernelVdso.NO_LEAD && KernelVdso.realtimeLead() != a.lead) {
            return unbounded(into, TimeBounds.Status.DISRUPTED); // REALTIME was set, or restored, since the sample
        }
        if (!a.bounds) {
            return unbounded(into, a.status);
        }
        // The time since the sample on REALTIME; its thresholds and growth rate were turned into REALTIME terms
        // at publication (Served), never short: REALTIME runs at most AGE_PER_REALTIME slower than MONOTONIC_RAW.
        long elapsed = real - a.realAt;
        if (elapsed < -STEP_SLACK_NANOS) {
            return unbounded(into, TimeBounds.Status.DISRUPTED); // REALTIME stepped back since the sample
        }
        if (elapsed >= a.voidElapsed) {
            return unbounded(into, TimeBounds.Status.UNKNOWN);
        }
        long bound = a.bound + grown(elapsed, a.growPerElapsed);
        into.earliest = real - bound;
        into.latest = real + bound;
        TimeBounds.Status status = elapsed < a.freshElapsed ? a.status : TimeBounds.Status.FREE_RUNNING;
        if (into.status != status) { // as for source: no barrier where the holder says so already
            into.status = status;
        }
        return into;
    }

    /**
     * Reads the watched page after REALTIME: copies its expectation into {@code into} and tells whether its marker
     * or generation differ from the anchor's (a disruption since the sample). Allocates nothing.
     */
    private boolean pageMoved(Served a, TimeBounds into) {
        // LoadLoad: the page is read after REALTIME's loads, so a REALTIME read after a restore meets the restore's
        // marker; pairs with the hypervisor's page update, made before the guest's vCPUs run again.
        java.lang.invoke.VarHandle.loadLoadFence();
        int look = a == null ? watch.look(0, 0) : watch.look(a.pageMarker, a.pageGeneration);
        into.expectation = look & VmClockWatch.EXPECTATION;
        return a != null && (look & VmClockWatch.MOVED) != 0;
    }

    /**
     * Waits for the watched page's expectation to differ from {@code seen} (see {@link BoundedClock}); without a
     * page, as any clock that expects nothing.
     */
    @Override
    public TimeBounds.Disruption awaitDisruption(TimeBounds.Disruption seen, Duration timeout)
            throws InterruptedException {
        return watch == null ? BoundedClock.super.awaitDisruption(seen, timeout) : watch.await(seen, timeout);
    }

    private static TimeBounds unbounded(TimeBounds into, TimeBounds.Status status) {
        into.earliest = Long.MIN_VALUE;
        into.latest = Long.MAX_VALUE;
        into.status = status;
        return into;
    }

    /**
     * The growth over {@code elapsed} ns of REALTIME at {@code growPerElapsed} ({@link Served#growPerElapsed}): one
     * double multiply, not long divisions (tens of cycles each), never below {@link #grow} over the longest age
     * that elapsed time can be: 2 ns cover the truncation and a double's rounding (under 1 ns below 10^15 ns).
     */
    static long grown(long elapsed, double growPerElapsed) {
        return (long) (Math.max(0, elapsed) * growPerElapsed) + 2;
    }

    /** {@code ppb} of {@code nanos}, rounded up; exact in longs for ages under 290 years and ppb under 10^9. */
    static long grow(long nanos, long ppb) {
        return (nanos / 1_000_000_000L) * ppb + ((nanos % 1_000_000_000L) * ppb + 999_999_999L) / 1_000_000_000L;
    }

    /** {@return the anchor reads use now (null before the first sample)} */
    Anchor anchor() {
        Served a = served;
        return a == null ? null : a.anchor;
    }

    /**
     * An anchor as reads use it: its instants, thresholds and growth turned into terms of the REALTIME elapsed since
     * its sample once, at publication, never to the reader's favour (an age is the elapsed time times
     * {@link #AGE_PER_REALTIME}). Immutable: published whole.
     */
    static final class Served {
        final Anchor anchor;
        final boolean bounds;
        final TimeBounds.Status status;
        final long lead;
        /** {@link Disruptions#count()} before the sample: a read that finds another is DISRUPTED. */
        final long disruptions;
        /** The VMClock page's disruption marker and VM generation at the sample (0 without a page). */
        final long pageMarker;
        final long pageGeneration;
        /** REALTIME at the sample. */
        final long realAt;
        final long bound;
        /** The elapsed REALTIME below which the anchor's status holds, then FREE_RUNNING. */
        final long freshElapsed;
        /** The elapsed REALTIME from which the anchor bounds nothing. */
        final long voidElapsed;
        /** ns of bound per ns of elapsed REALTIME: the drift, times AGE_PER_REALTIME. */
        final double growPerElapsed;

        Served(Anchor a) {
            this(a, Disruptions.count(), 0, 0);
        }

        Served(Anchor a, long disruptions, long pageMarker, long pageGeneration) {
            this.disruptions = disruptions;
            this.pageMarker = pageMarker;
            this.pageGeneration = pageGeneration;
            anchor = a;
            bounds = a.bounds();
            status = a.status;
            lead = a.lead;
            realAt = a.rawNanos + a.offsetNanos;
            bound = a.boundNanos;
            freshElapsed = elapsedBefore(a.freshNanos);
            voidElapsed = elapsedBefore(a.voidNanos);
            growPerElapsed = a.driftPpb * 1e-9 * AGE_PER_REALTIME;
        }

        /** The least elapsed REALTIME at which the age may have reached {@code ageNanos}, a little early. */
        static long elapsedBefore(long ageNanos) {
            return ageNanos == Long.MAX_VALUE ? Long.MAX_VALUE : (long) Math.floor((ageNanos - 1) / AGE_PER_REALTIME) - 1;
        }
    }

    /**
     * Samples the source and publishes its anchor, stamped with the lead it was sampled under. After a set of
     * REALTIME ({@code stepped}: the timerfd fired; or the lead changed since the last sample), DISRUPTED until
     * the source's bound rests only on measurements taken since. A change of the watched VMClock page's marker or
     * generation since the last sample counts as such a set.
     */
    void refresh(boolean stepped) {
        long raw = Clocks.nanos(ClockId.MONOTONIC_RAW); // the first read after a restore notices it (exact mode)
        long lead = KernelVdso.realtimeLead();
        boolean pageMoved;
        try {
            pageMoved = watch != null && watch.moved(); // a move it sees is noted in Disruptions too
        } catch (IllegalStateException e) { // seq_count never settles: nothing is known of the page
            publish(Anchor.unbounded(raw, TimeBounds.Status.UNKNOWN, e.getMessage()).stamped(lead));
            return;
        }
        long disruptions = Disruptions.count();
        String ns = TimeNamespace.identity();
        boolean restored = !pageMoved
                && (disruptions != disruptionsSeen || (namespace != null && !ns.equals(namespace)));
        disruptionsSeen = disruptions;
        namespace = ns;
        if (restored) {
            // Restored from a checkpoint: every anchor before is void, and REALTIME - MONOTONIC moved by the time
            // the process lay frozen, which no one set (not a set: the clock is this host's, its source too).
            restoredAtRaw = raw;
            leadSeen = false;
            pendingSetNanos = 0;
            source.realtimeSet();
        }
        if (restoredAtRaw != Long.MIN_VALUE && raw - restoredAtRaw < RESTORE_SETTLE_NANOS) {
            publish(Anchor.unbounded(raw, TimeBounds.Status.DISRUPTED, "restored from a checkpoint "
                    + (raw - restoredAtRaw) / 1_000_000L + " ms ago: " + source.description()
                    + " is sampled again " + RESTORE_SETTLE_NANOS / 1_000_000L + " ms after").stamped(lead));
            return;
        }
        long measured = leadNow(lead);
        long spread = Math.max(MEASURED_LEAD_SLACK_NANOS, 2 * (leadWidth + lastLeadWidth)); // both reads' brackets
        boolean set = stepped || (leadSeen && lead != lastLead) || (leadSeen && lead == KernelVdso.NO_LEAD
                && Math.abs(measured - lastMeasuredLead) > spread);
        lastLeadWidth = leadWidth;
        if (set || pageMoved) {
            setAtRaw = raw;
            setBy = pageMoved ? "the VMClock page's disruption marker or VM generation moved" : "REALTIME was set";
            if (set && leadSeen) {
                pendingSetNanos += measured - lastMeasuredLead;
            }
            source.realtimeSet();
        }
        lastLead = lead;
        lastMeasuredLead = measured;
        leadSeen = true;
        Anchor a;
        try {
            a = source.sample();
        } catch (RuntimeException e) {
            a = Anchor.unbounded(raw, TimeBounds.Status.UNKNOWN, source.description() + ": " + e.getMessage());
        }
        boolean movedSince = (watch != null && movedSince()) || Disruptions.count() != disruptions;
        if (KernelVdso.realtimeLead() != lead || movedSince) { // set while sampling: the sample may straddle it
            publish(Anchor.unbounded(raw, TimeBounds.Status.DISRUPTED, (movedSince ? "a disruption was seen"
                    : "REALTIME was set") + " while " + source.description() + " was sampled").stamped(lead));
            return; // the next refresh sees the new lead, or page, and treats it as a set
        }
        if (a.bounds() && pendingSetNanos != 0) {
            if (Math.abs(pendingSetNanos) <= a.boundNanos || source.measured(pendingSetNanos)) {
                pendingSetNanos = 0; // the source's bound covers the sets, or it measured them
            } else {
                publish(Anchor.unbounded(raw, TimeBounds.Status.DISRUPTED, "REALTIME was set by "
                        + pendingSetNanos / 1_000 + " us, which " + source.description() + " has not measured yet")
                        .stamped(lead));
                return;
            }
        }
        if (a.bounds() && a.basisRaw < setAtRaw) {
            publish(Anchor.unbounded(raw, TimeBounds.Status.DISRUPTED, setBy + " "
                    + (raw - setAtRaw) / 1_000_000L + " ms ago: until " + source.description()
                    + " has measured since").stamped(lead));
            return;
        }
        publish(a.stamped(lead));
    }

    /** {@return whether the page moved since the refresher's look before the sample; true where it never settles} */
    private boolean movedSince() {
        try {
            return (watch.look(watch.marker(), watch.generation()) & VmClockWatch.MOVED) != 0;
        } catch (IllegalStateException e) {
            return true;
        }
    }

    /**
     * How far a measured lead may wander without a set, at least, where exact mode does not serve: also twice the
     * two measurements' brackets (an emulated JVM's reads take tens of microseconds; a timerfd sees every set anyway).
     */
    static final long MEASURED_LEAD_SLACK_NANOS = 200_000L;

    /**
     * REALTIME - MONOTONIC now, for the size of a set: the kernel's exact lead where exact mode serves, else
     * measured ({@link ClockOffset}: the reads are the kernel's then too).
     */
    private long leadNow(long exactLead) {
        if (exactLead != KernelVdso.NO_LEAD) {
            leadWidth = 0;
            return exactLead;
        }
        leadWidth = leadOffset.measure(ClockId.MONOTONIC, ClockId.REALTIME).width();
        return leadOffset.offset();
    }

    private void publish(Anchor a) {
        // Volatile store: pairs with the volatile load in now(); its fields are final too. The disruption count,
        // page marker and generation are those the refresher read before the sample (a change since makes reads
        // DISRUPTED).
        served = watch == null ? new Served(a, disruptionsSeen, 0, 0)
                : new Served(a, disruptionsSeen, watch.marker(), watch.generation());
    }

    private void startRefresher() {
        Thread t = new Thread(this::refreshForever, "timekeeping4j-bounds");
        t.setDaemon(true);
        t.start();
    }

    private void refreshForever() {
        TimerFd watcher = null;
        try {
            watcher = TimerFd.watchRealtimeSet();
        } catch (RuntimeException e) {
            // No timerfd (seccomp): reads still refuse a backward step; a forward one shows at the next sample.
        }
        while (true) {
            try {
                boolean stepped = false;
                if (watcher != null) {
                    stepped = watcher.await(source.nextSampleMillis());
                } else {
                    Thread.sleep(source.nextSampleMillis()); // the refresh period: time must pass
                }
                refresh(stepped);
            } catch (InterruptedException e) {
                return;
            } catch (RuntimeException e) {
                publish(Anchor.unbounded(Clocks.nanos(ClockId.MONOTONIC_RAW), TimeBounds.Status.UNKNOWN,
                        source.description() + ": " + e.getMessage()));
            }
        }
    }

    /** The source, and what it said at the last sample: "adjtimex, served at counter speed: adjtimex: ...". */
    @Override
    public String description() {
        return source.description() + ", served at counter speed: " + why();
    }

    /** {@return the source and what it said at the last sample, one line} */
    String why() {
        Anchor a = anchor();
        return a == null ? source.description() + ": not sampled yet" : a.why;
    }

    @Override
    public void close() {
        // The process's instance: nothing to close.
    }
}
