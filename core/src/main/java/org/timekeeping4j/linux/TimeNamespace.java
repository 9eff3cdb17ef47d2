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

    /** The kernel's statement of this process's offsets (Linux 5.6+). */
    private static final Path OFFSETS = Path.of("/proc/self/timens_offsets");

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
     * The namespace's offsets, ns: what it adds to MONOTONIC (and MONOTONIC_RAW, MONOTONIC_COARSE) and to BOOTTIME;
     * both 0 in the initial namespace.
     *
     * @param monotonicNanos the MONOTONIC offset
     * @param boottimeNanos  the BOOTTIME offset
     */
    public record Offsets(long monotonicNanos, long boottimeNanos) {}

    /**
     * {@return this process's offsets, from /proc/self/timens_offsets}
     *
     * @throws IOException where the file cannot be read or parsed (kernels before 5.6, CONFIG_TIME_NS off)
     */
    public static Offsets offsets() throws IOException {
        long mono = 0;
        long boot = 0;
        try {
            for (String line : Files.readAllLines(OFFSETS)) {
                String[] f = line.trim().split("\\s+");
                long ns = Long.parseLong(f[1]) * 1_000_000_000L + Long.parseLong(f[2]);
                if (f[0].equals("monotonic") || f[0].equals("1")) {
                    mono = ns;
                } else if (f[0].equals("boottime") || f[0].equals("7")) {
                    boot = ns;
                }
            }
        } catch (RuntimeException e) {
            throw new IOException("malformed /proc/self/timens_offsets: " + e.getMessage(), e);
        }
        return new Offsets(mono, boot);
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
            String offsets = Files.readString(OFFSETS);
            return link() + " " + offsets.strip().replaceAll("\\s+", " ");
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }
}
