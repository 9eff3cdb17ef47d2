package org.timekeeping4j;

import org.timekeeping4j.linux.TimexReading;

/** Builds a {@link SyncStatus} from a raw reading for tests in other packages (the factory is module-internal). */
public final class SyncStatuses {

    private SyncStatuses() {
    }

    /** The status a successful clock_adjtime returning {@code timex} gives. */
    public static SyncStatus of(TimexReading timex) {
        return SyncStatus.of(timex);
    }
}
