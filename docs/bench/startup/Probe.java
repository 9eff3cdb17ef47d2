/**
 * What every start-up variant prints once it has made its first read (scripts/startup-bench.sh runs them).
 *
 * <p>Kept to classes a JVM has loaded at boot (FileInputStream, StringBuilder, Thread.sleep), so that measuring
 * costs every variant the same: no NIO, no charsets beyond the default, no lambdas, no string-concat bootstrap
 * (the script compiles with -XDstringConcat=inline).
 */
final class Probe {

    private Probe() {}

    /** Set by the script just before it starts the JVM: bash's EPOCHREALTIME in microseconds. */
    private static final String LAUNCH = "sb.launchMicros";

    /**
     * Prints one line: the first read's own time, the time from launch until it returned, the time until exact mode
     * served ({@code serveNanos}, -1 if not asked), then, 300 ms after the first read, this process's memory.
     *
     * @param firstNanos the first read, System.nanoTime before and after, including every class it initialised
     * @param doneNanos  System.nanoTime when the first read returned
     * @param doneMillis System.currentTimeMillis when the first read returned
     * @param serveNanos the time from the first read until exact mode served, or -1
     * @param value      the value read (printed so that no read can be elided)
     */
    static void report(long firstNanos, long doneNanos, long doneMillis, long serveNanos, long value)
            throws Exception {
        long sleepUntil = doneNanos + 300_000_000L;
        long left;
        while ((left = sleepUntil - System.nanoTime()) > 0) {
            Thread.sleep(left / 1_000_000L, (int) (left % 1_000_000L));
        }
        String status = readStatus();
        Runtime rt = Runtime.getRuntime();
        long heapKb = (rt.totalMemory() - rt.freeMemory()) / 1024;
        String launch = System.getProperty(LAUNCH);
        long launchMicros = -1;
        if (launch != null) {
            launchMicros = doneMillis * 1000 - Long.parseLong(launch);
        }
        StringBuilder sb = new StringBuilder(200);
        sb.append("first_ns=").append(firstNanos)
                .append(" launch_us=").append(launchMicros)
                .append(" serve_ns=").append(serveNanos)
                .append(" rss_kb=").append(field(status, "VmRSS:"))
                .append(" anon_kb=").append(field(status, "RssAnon:"))
                .append(" file_kb=").append(field(status, "RssFile:"))
                .append(" heap_kb=").append(heapKb)
                .append(" threads=").append(field(status, "Threads:"))
                .append(" value=").append(value);
        System.out.println(sb.toString());
    }

    /** /proc/self/status, read with the boot classes only. */
    private static String readStatus() throws Exception {
        byte[] buf = new byte[16384];
        int n = 0;
        try (java.io.FileInputStream in = new java.io.FileInputStream("/proc/self/status")) {
            int r;
            while (n < buf.length && (r = in.read(buf, n, buf.length - n)) > 0) {
                n += r;
            }
        }
        char[] chars = new char[n];
        for (int i = 0; i < n; i++) {
            chars[i] = (char) (buf[i] & 0xff);
        }
        return new String(chars);
    }

    /** The number after {@code name} in /proc/self/status (kB for the sizes), or -1. */
    private static long field(String status, String name) {
        int at = status.indexOf(name);
        if (at < 0) {
            return -1;
        }
        int i = at + name.length();
        while (i < status.length() && status.charAt(i) == ' ' || i < status.length() && status.charAt(i) == '\t') {
            i++;
        }
        long v = 0;
        while (i < status.length() && Character.isDigit(status.charAt(i))) {
            v = v * 10 + (status.charAt(i++) - '0');
        }
        return v;
    }
}
