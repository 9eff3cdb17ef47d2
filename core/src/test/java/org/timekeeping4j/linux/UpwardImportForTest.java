package org.timekeeping4j.linux;

import org.timekeeping4j.arch.Arch;


/** An upward import (linux to arch), for PackageOrderTest's check of its own rules only. */
public final class UpwardImportForTest {

    private UpwardImportForTest() {}

    /** {@return the name of a type above linux: the import the order refuses} */
    public static String above() {
        return Arch.X86_64.machine();
    }
}
