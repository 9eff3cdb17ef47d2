package org.timekeeping4j.vdso;

import java.io.IOException;
import java.util.List;
import org.timekeeping4j.linux.TimeNamespace;

/**
 * Where the kernel maps its vDSO data in this process: the {@code [vvar]} line of /proc/self/maps, matched
 * by its exact name ({@code [vvar_vclock]} is another mapping), and whether this process lives in a time
 * namespace other than the initial one.
 *
 * @param start     first byte of [vvar]
 * @param end       one past its last byte
 * @param vdsoStart first byte of [vdso], or 0 if absent
 * @param vclockStart first byte of [vvar_vclock] (6.13+: the pvclock and hvclock pages), or 0 if absent
 * @param vclockEnd  one past its last byte, or 0
 */
public record VvarMapping(long start, long end, long vdsoStart, long vclockStart, long vclockEnd) {

    /** A mapping without [vvar_vclock]. */
    public VvarMapping(long start, long end, long vdsoStart) {
        this(start, end, vdsoStart, 0, 0);
    }

    /** Bytes mapped. */
    public long size() {
        return end - start;
    }

    /**
     * Parses the lines of a /proc/PID/maps file.
     *
     * @return the mapping, or null when no line names exactly [vvar]
     * @throws IllegalArgumentException when [vvar] appears more than once or its line is malformed
     */
    public static VvarMapping parse(List<String> maps) {
        return parse(maps.toArray(new String[0]));
    }

    private static VvarMapping parse(String[] maps) {
        long[] vvar = null;
        long[] vclock = {0, 0};
        long vdso = 0;
        for (String line : maps) {
            String[] f = fields(line);
            if (f.length < 6) {
                continue;
            }
            String name = f[f.length - 1];
            if (name.equals("[vvar]")) {
                if (vvar != null) {
                    throw new IllegalArgumentException("[vvar] is mapped twice");
                }
                vvar = range(f[0]);
                if (!f[1].startsWith("r")) {
                    throw new IllegalArgumentException("[vvar] is not readable (" + f[1] + ")");
                }
            } else if (name.equals("[vvar_vclock]")) {
                vclock = range(f[0]);
            } else if (name.equals("[vdso]")) {
                vdso = range(f[0])[0];
            }
        }
        return vvar == null ? null : new VvarMapping(vvar[0], vvar[1], vdso, vclock[0], vclock[1]);
    }

    /**
     * The whitespace-separated fields of a maps line: address range, permissions, offset, device, inode, then the
     * name (a path with spaces is more fields; the name is the last). By hand: a regex costs a cold JVM milliseconds.
     */
    private static String[] fields(String line) {
        String[] f = new String[8];
        int n = 0;
        int start = -1;
        for (int i = 0; i <= line.length(); i++) {
            boolean space = i == line.length() || Character.isWhitespace(line.charAt(i));
            if (space && start >= 0) {
                if (n == f.length) {
                    f = java.util.Arrays.copyOf(f, 2 * n);
                }
                f[n++] = line.substring(start, i);
                start = -1;
            } else if (!space && start < 0) {
                start = i;
            }
        }
        return java.util.Arrays.copyOf(f, n);
    }

    private static long[] range(String field) {
        int dash = field.indexOf('-');
        if (dash <= 0) {
            throw new IllegalArgumentException("malformed address range " + field);
        }
        return new long[] {Long.parseUnsignedLong(field.substring(0, dash), 16),
                Long.parseUnsignedLong(field.substring(dash + 1), 16)};
    }

    /** This process's mapping, or null when /proc/self/maps names no [vvar] (vdso=0, not Linux, ...). */
    static VvarMapping ofThisProcess() throws IOException {
        // java.io, not java.nio.file: on a cold JVM this is the first file a read opens, and java.io's classes
        // are loaded already (NIO's first use costs tens of ms on a cold JVM: docs/PERFORMANCE.md).
        try (java.io.FileInputStream in = new java.io.FileInputStream("/proc/self/maps")) {
            return parse(bracketed(in.readAllBytes()));
        }
    }

    /**
     * The lines of {@code maps} that end in ']', the only ones that can name [vvar], [vvar_vclock] or [vdso]: a
     * JVM maps hundreds of files and anonymous ranges, and the discovery runs in the interpreter, where splitting
     * every line into fields cost a cold JVM about two milliseconds. One pass over the bytes, no regex.
     */
    static String[] bracketed(byte[] maps) {
        String[] found = new String[8];
        int n = 0;
        int start = 0;
        for (int i = 0; i <= maps.length; i++) {
            if (i < maps.length && maps[i] != '\n') {
                continue;
            }
            if (i > start && maps[i - 1] == ']') {
                if (n == found.length) {
                    found = java.util.Arrays.copyOf(found, 2 * n);
                }
                found[n++] = new String(maps, start, i - start, java.nio.charset.StandardCharsets.US_ASCII);
            }
            start = i + 1;
        }
        return java.util.Arrays.copyOf(found, n);
    }

    /**
     * "initial", "other: time:[N]" for a process in a time namespace of its own, or "unknown: ..." when
     * /proc/self/ns/time cannot be read (kernels before 5.6, CONFIG_TIME_NS off, or a hidden /proc).
     */
    static String timeNamespace() {
        try {
            String link = TimeNamespace.link();
            return link.equals(TimeNamespace.INITIAL) ? "initial" : "other: " + link;
        } catch (IOException e) {
            return "unknown: " + e.getMessage();
        }
    }
}
