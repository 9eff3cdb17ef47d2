package org.timekeeping4j.device;

/**
 * What the PHC's discipline last measured, published whole for {@link FastPtpClock}'s readers: a cross timestamp
 * (the PHC's time at a MONOTONIC_RAW value, with half its width), the PHC's rate against MONOTONIC_RAW over the
 * recent cross timestamps with that estimate's error, and the allowance for the rate changing since (holdover).
 * Immutable: readers take it through one volatile read.
 *
 * <p>From it a reader predicts the PHC at any later MONOTONIC_RAW value and bounds the prediction's error:
 * {@code halfWidth + (rateError + holdover) * age}, age counted from the cross timestamp.
 *
 * @param raw             MONOTONIC_RAW at the cross timestamp (its midpoint), ns
 * @param phc             the PHC's time there, ns
 * @param halfWidthNanos  half the cross timestamp's width in PHC ns (+2 for the reading's and predict's rounding)
 * @param ratePpb         the PHC's rate against MONOTONIC_RAW, ppb: the PHC gains this many ns per second of RAW
 * @param rateErrorPpb    how far the rate estimate may be off, ppb (the widths over the span it was measured on)
 * @param holdoverPpb     the allowance for the PHC's rate changing after the estimate, ppb
 * @param method          how the cross timestamp was taken
 * @param intervalNanos   the discipline's interval when this was published
 * @param generation      how many cross timestamps the discipline has published, this one included
 * @param disruptions     how many times a cross timestamp found the PHC outside the bound the one before it
 *                        claimed (a step, or a frequency change faster than the holdover allowance)
 */
record PhcAnchor(long raw, long phc, long halfWidthNanos, double ratePpb, double rateErrorPpb, double holdoverPpb,
                 PtpClock.Method method, long intervalNanos, long generation, long disruptions) {

    /**
     * Where the discipline publishes its newest anchor for readers: one writer, any number of readers, no lock
     * (jcstress: PhcAnchorPublicationTest).
     */
    static final class Slot {
        private volatile PhcAnchor newest;

        /** Publishes {@code a}: a reader that sees it sees every field as built (release, final fields). */
        void publish(PhcAnchor a) {
            newest = a; // release: pairs with the acquire in read()
        }

        /** {@return the newest anchor, whole, or null before the first} */
        PhcAnchor read() {
            return newest; // acquire: pairs with the release in publish()
        }
    }

    /** {@return the predicted PHC time at MONOTONIC_RAW {@code rawNow}, ns} */
    long predict(long rawNow) {
        long age = rawNow - raw;
        return phc + age + Math.round(age * ratePpb * 1e-9);
    }

    /**
     * The prediction's error bound at {@code age} ns after the cross timestamp: half its width, plus the rate's
     * error and the holdover allowance over the age, rounded up.
     *
     * @param age ns of MONOTONIC_RAW since {@link #raw}, at least 0
     * @return the bound, ns
     */
    long bound(long age) {
        return halfWidthNanos + (long) Math.ceil(age * (rateErrorPpb + holdoverPpb) * 1e-9);
    }
}
