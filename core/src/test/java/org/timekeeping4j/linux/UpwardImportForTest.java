package org.timekeeping4j.linux;

import org.timekeeping4j.clocksource.CounterArch;

/** An upward import (linux to clocksource), for PackageOrderTest's check of its own rules only. */
public final class UpwardImportForTest {

    private UpwardImportForTest() {}

    /** {@return the name of a type above linux: the import the order refuses} */
    public static String above() {
        return CounterArch.X86_64.machine();
    }
}
