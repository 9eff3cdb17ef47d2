package org.timekeeping4j.linux;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * This process's time namespace, as /proc states it: its link (/proc/self/ns/time) and its offsets
 * (/proc/self/timens_offsets). A checkpoint restored by CRIU runs in a new namespace whose offsets continue
 * MONOTONIC and BOOTTIME from the dump, so REALTIME - MONOTONIC moves by the time the process lay frozen
 * without anyone setting REALTIME. Reads only; off the read paths (each call reads /proc, and allocates).
 */
public final class TimeNamespace {

    /** /proc/self/ns/time of the initial time namespace: time:[PROC_TIME_INIT_INO] (0xEFFFFFFA). */
    public static final String INITIAL = "time:[4026531834]";

    private TimeNamespace() {}

    /**
     * {@return the namespace's link, "time:[N]"}
     *
     * @throws IOException where /proc/self/ns/time cannot be read (kernels before 5.6, CONFIG_TIME_NS off, a
     *                     hidden /proc)
     */
    public static String link() throws IOException {
        try {
            return Files.readSymbolicLink(Path.of("/proc/self/ns/time")).toString();
        } catch (UnsupportedOperationException | SecurityException e) {
            throw new IOException(e.getMessage(), e);
        }
    }

    /**
     * Names the namespace this process is in now: its link and its offsets, "time:[N] monotonic 0 0 boottime 0 0".
     * The link alone does not: the kernel reuses the inode of a namespace that is gone, and a restore after a
     * checkpoint has been seen to get its predecessor's; never the same offsets. Where /proc does not say,
     * "unknown" (then the same every time: no change is ever seen).
     *
     * @return the identity, comparable with {@link String#equals}
     */
    public static String identity() {
        try {
            String offsets = Files.readString(Path.of("/proc/self/timens_offsets"));
            return link() + " " + offsets.strip().replaceAll("\\s+", " ");
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }
}
