package org.timekeeping4j.device;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.PortUnreachableException;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.function.IntPredicate;
import java.util.function.LongSupplier;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.KernelClocks;

/**
 * A client of chronyd's command protocol (chrony's candm.h, protocol version 6) that asks for the tracking report,
 * the one {@code chronyc tracking} prints, as ClockBound's daemon does: {@link #tracking()} sends REQ_TRACKING
 * and decodes RPY_TRACKING into a {@link ChronydTracking}, stamped with CLOCK_MONOTONIC.
 *
 * <p><b>Transport.</b> UDP to chronyd's command port ({@link #DEFAULT_ENDPOINT}, 127.0.0.1:323), through a
 * {@link DatagramChannel} connected to the endpoint. chronyd answers monitoring requests such as tracking there
 * without root, for the addresses its {@code cmdallow} permits (localhost by default). Each attempt carries a new
 * random sequence number, as chronyc's do; an attempt waits {@code attemptTimeout} for its reply, then the next one
 * is sent (2 attempts of 500 ms by default: a second at most). A reply to any attempt of the same call is accepted.
 * Not the Unix datagram socket (/run/chrony/chronyd.sock): the JDK's Unix-domain channels are stream-only, and the
 * socket answers only root and the chrony group.
 *
 * <p><b>Packets.</b> All fields big-endian. Request (104 bytes): version 6 @0, packet type 1 @1, two reserved
 * bytes, command u16 @4 (33, REQ_TRACKING), attempt u16 @6, sequence u32 @8, two u32 pads @12, then 84 zero bytes
 * of padding, so that the request is as long as the reply (chronyd refuses shorter ones: anti-amplification).
 * Reply header (28 bytes): version @0, packet type 2 @1, two reserved bytes, command u16 @4, reply u16 @6 (5,
 * RPY_TRACKING), status u16 @8 (0, STT_SUCCESS), three u16 pads, the echoed sequence u32 @16, two u32 pads.
 * RPY_TRACKING body @28: ref_id u32, IPAddr (16 address bytes, family u16, pad u16), stratum u16 @52, leap_status
 * u16 @54, ref_time @56 (sec_high, sec_low, nsec: u32 each), then nine chrony Floats @68..104:
 * current_correction, last_offset, rms_offset, freq_ppm, resid_freq_ppm, skew_ppm, root_delay, root_dispersion,
 * last_update_interval.
 *
 * <p><b>Floats</b> ({@link #decodeFloat(int)}, util.c's UTI_FloatNetworkToHost): a 32-bit word, a 7-bit signed
 * exponent above a 25-bit signed coefficient; the value is coefficient * 2^(exponent - 25).
 *
 * <p><b>Validation.</b> A reply that is shorter than its header or its body, has another protocol version, packet
 * type, command or reply code, a sequence number no attempt of this call sent, a non-zero status or a leap status
 * above 3 is an {@link IOException} whose one-line message names the endpoint. So are a timeout of every attempt
 * and an ICMP port-unreachable (nothing listens there).
 *
 * <p>Thread-safe ({@link #tracking()} is synchronized: one request in flight); allocates per call. {@link #close()}
 * closes the channel.
 */
final class Chronyd implements AutoCloseable {

    /** Where chronyd listens for monitoring commands by default (candm.h's DEFAULT_CANDM_PORT). */
    static final String DEFAULT_ENDPOINT = "127.0.0.1:323";
    /** How long an attempt waits for its reply by default. */
    static final Duration DEFAULT_ATTEMPT_TIMEOUT = Duration.ofMillis(500);
    /** How many requests a call sends at most by default. */
    static final int DEFAULT_ATTEMPTS = 2;

    static final int PROTO_VERSION = 6;
    static final int PKT_TYPE_CMD_REQUEST = 1;
    static final int PKT_TYPE_CMD_REPLY = 2;
    static final int REQ_TRACKING = 33;
    static final int RPY_TRACKING = 5;
    static final int STT_SUCCESS = 0;

    static final int REQUEST_HEADER_LENGTH = 20;
    static final int REPLY_HEADER_LENGTH = 28;
    /** offsetof(CMD_Reply, data.tracking.EOR). */
    static final int TRACKING_REPLY_LENGTH = 104;
    /** The request's REQ_Null body is empty: its padding makes it as long as the reply. */
    static final int TRACKING_REQUEST_LENGTH = TRACKING_REPLY_LENGTH;

    static final int OFF_VERSION = 0;
    static final int OFF_PKT_TYPE = 1;
    static final int OFF_RES1 = 2;
    static final int OFF_RES2 = 3;
    static final int OFF_COMMAND = 4;
    static final int OFF_ATTEMPT = 6;
    static final int OFF_REQUEST_SEQUENCE = 8;
    static final int OFF_REPLY = 6;
    static final int OFF_STATUS = 8;
    static final int OFF_REPLY_SEQUENCE = 16;
    static final int OFF_REF_ID = 28;
    static final int OFF_IP_ADDR = 32;
    static final int OFF_IP_FAMILY = 48;
    static final int OFF_STRATUM = 52;
    static final int OFF_LEAP_STATUS = 54;
    static final int OFF_REF_TIME = 56;
    static final int OFF_FLOATS = 68;

    static final int IPADDR_UNSPEC = 0;
    static final int IPADDR_INET4 = 1;
    static final int IPADDR_INET6 = 2;
    /** candm.h's TV_NOHIGHSEC: the high word of a time that fits 32 bits. */
    static final int TV_NOHIGHSEC = 0x7fffffff;

    private static final String[] STATUS_NAMES = {"STT_SUCCESS", "STT_FAILED", "STT_UNAUTH", "STT_INVALID",
        "STT_NOSUCHSOURCE", "STT_INVALIDTS", "STT_NOTENABLED", "STT_BADSUBNET", "STT_ACCESSALLOWED",
        "STT_ACCESSDENIED", "STT_NOHOSTACCESS", "STT_SOURCEALREADYKNOWN", "STT_TOOMANYSOURCES", "STT_NORTC",
        "STT_BADRTCFILE", "STT_INACTIVE", "STT_BADSAMPLE", "STT_INVALIDAF", "STT_BADPKTVERSION",
        "STT_BADPKTLENGTH"};

    private final InetSocketAddress endpoint;
    private final String name;
    private final long attemptTimeoutNanos;
    private final int attempts;
    private final LongSupplier monotonic;
    private final SecureRandom random = new SecureRandom();
    private DatagramChannel channel;
    private Selector selector;
    private boolean closed;

    private Chronyd(InetSocketAddress endpoint, Duration attemptTimeout, int attempts, LongSupplier monotonic) {
        if (attempts < 1 || attemptTimeout.isNegative() || attemptTimeout.isZero()) {
            throw new IllegalArgumentException("attempts " + attempts + ", timeout " + attemptTimeout);
        }
        this.endpoint = endpoint;
        this.name = endpoint.getHostString() + ":" + endpoint.getPort();
        this.attemptTimeoutNanos = attemptTimeout.toNanos();
        this.attempts = attempts;
        this.monotonic = monotonic;
    }

    /** chronyd at {@link #DEFAULT_ENDPOINT}, with the default attempts. */
    static Chronyd local() {
        return udp(DEFAULT_ENDPOINT);
    }

    /**
     * chronyd's command port at {@code endpoint}, with the default attempts.
     *
     * @param endpoint "host:port", e.g. "127.0.0.1:323" or "[::1]:323"
     * @return a client; no packet is sent yet
     */
    static Chronyd udp(String endpoint) {
        return udp(parse(endpoint), DEFAULT_ATTEMPT_TIMEOUT, DEFAULT_ATTEMPTS);
    }

    static Chronyd udp(InetSocketAddress endpoint, Duration attemptTimeout, int attempts) {
        return new Chronyd(endpoint, attemptTimeout, attempts, () -> KernelClocks.nanos(ClockId.MONOTONIC));
    }

    /** "host:port" or "[v6]:port" into a resolved address; a malformed endpoint is an IllegalArgumentException. */
    static InetSocketAddress parse(String endpoint) {
        int colon = endpoint.lastIndexOf(':');
        if (colon <= 0 || colon == endpoint.length() - 1) {
            throw new IllegalArgumentException("chronyd endpoint " + endpoint + ": expected host:port");
        }
        String host = endpoint.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(endpoint.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("chronyd endpoint " + endpoint + ": the port is no number");
        }
        if (port < 1 || port > 65535) {
            throw new IllegalArgumentException("chronyd endpoint " + endpoint + ": port out of range");
        }
        InetSocketAddress address = new InetSocketAddress(host, port);
        if (address.isUnresolved()) {
            throw new IllegalArgumentException("chronyd endpoint " + endpoint + ": unknown host");
        }
        return address;
    }

    /** {@return the endpoint as "host:port", as error messages name it} */
    String endpoint() {
        return name;
    }

    /**
     * Asks chronyd for its tracking report.
     *
     * @return the report, stamped with CLOCK_MONOTONIC before the first request and when the reply arrived
     * @throws IOException one line naming the endpoint: no reply in time, nothing listening, a malformed reply
     */
    synchronized ChronydTracking tracking() throws IOException {
        if (closed) {
            throw new IOException("chronyd at " + name + ": client closed");
        }
        open();
        drain();
        ByteBuffer request = ByteBuffer.allocate(TRACKING_REQUEST_LENGTH);
        ByteBuffer reply = ByteBuffer.allocate(1024); // larger than any reply: a longer one is no tracking reply
        int[] sent = new int[attempts];
        long requested = monotonic.getAsLong();
        for (int attempt = 0; attempt < attempts; attempt++) {
            sent[attempt] = random.nextInt();
            encodeRequest(request.clear(), REQ_TRACKING, attempt, sent[attempt]);
            try {
                channel.write(request.flip());
            } catch (PortUnreachableException e) {
                throw unreachable();
            }
            long deadline = System.nanoTime() + attemptTimeoutNanos;
            for (long left = attemptTimeoutNanos; left > 0; left = deadline - System.nanoTime()) {
                selector.selectedKeys().clear();
                if (selector.select(Math.max(1, left / 1_000_000)) == 0) {
                    continue;
                }
                int n;
                try {
                    n = channel.read(reply.clear());
                } catch (PortUnreachableException e) {
                    throw unreachable();
                }
                if (n <= 0) {
                    continue;
                }
                long received = monotonic.getAsLong();
                int count = attempt + 1;
                return decode(reply.flip(), name, seq -> contains(sent, count, seq), requested, received);
            }
        }
        throw new IOException("chronyd at " + name + ": no reply to " + attempts + " tracking requests in "
                + Duration.ofNanos(attemptTimeoutNanos * attempts).toMillis() + " ms");
    }

    private IOException unreachable() {
        return new IOException("chronyd at " + name + ": nothing listens there (ICMP port unreachable)");
    }

    private static boolean contains(int[] values, int count, int value) {
        for (int i = 0; i < count; i++) {
            if (values[i] == value) {
                return true;
            }
        }
        return false;
    }

    private void open() throws IOException {
        if (channel != null) {
            return;
        }
        DatagramChannel ch = DatagramChannel.open();
        try {
            ch.connect(endpoint);
            ch.configureBlocking(false);
            Selector sel = Selector.open();
            ch.register(sel, SelectionKey.OP_READ);
            channel = ch;
            selector = sel;
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw new IOException("chronyd at " + name + ": cannot open a UDP socket to it: " + e.getMessage(), e);
        }
    }

    /** Drops replies that came too late for an earlier call, so that they cannot pass for this call's. */
    private void drain() throws IOException {
        ByteBuffer scratch = ByteBuffer.allocate(1024);
        for (int i = 0; i < 64; i++) {
            try {
                if (channel.receive(scratch.clear()) == null) {
                    return;
                }
            } catch (PortUnreachableException e) {
                // An earlier call's request was refused; this call sends its own.
            }
        }
    }

    /** Fills {@code into} (from its position, big-endian) with a request for {@code command}, padded. */
    static void encodeRequest(ByteBuffer into, int command, int attempt, int sequence) {
        ByteBuffer b = into.order(ByteOrder.BIG_ENDIAN);
        int start = b.position();
        b.put((byte) PROTO_VERSION).put((byte) PKT_TYPE_CMD_REQUEST).put((byte) 0).put((byte) 0);
        b.putShort((short) command).putShort((short) attempt).putInt(sequence).putInt(0).putInt(0);
        while (b.position() - start < TRACKING_REQUEST_LENGTH) {
            b.put((byte) 0);
        }
    }

    /**
     * Validates and decodes an RPY_TRACKING reply.
     *
     * @param reply     the datagram, from its position to its limit
     * @param endpoint  the endpoint, for messages
     * @param sequences which sequence numbers this call sent
     * @param requested CLOCK_MONOTONIC when the request went out
     * @param received  CLOCK_MONOTONIC when the reply arrived
     * @return the report
     * @throws IOException one line naming the endpoint and what is wrong with the reply
     */
    static ChronydTracking decode(ByteBuffer reply, String endpoint, IntPredicate sequences, long requested,
            long received) throws IOException {
        ByteBuffer b = reply.slice().order(ByteOrder.BIG_ENDIAN);
        int length = b.remaining();
        if (length < REPLY_HEADER_LENGTH) {
            throw bad(endpoint, "truncated reply: " + length + " bytes, its header takes " + REPLY_HEADER_LENGTH);
        }
        int version = b.get(OFF_VERSION) & 0xff;
        if (version != PROTO_VERSION) {
            throw bad(endpoint, "reply of protocol version " + version + ", expected " + PROTO_VERSION);
        }
        int type = b.get(OFF_PKT_TYPE) & 0xff;
        if (type != PKT_TYPE_CMD_REPLY || b.get(OFF_RES1) != 0 || b.get(OFF_RES2) != 0) {
            throw bad(endpoint, "not a command reply (packet type " + type + ")");
        }
        int command = b.getShort(OFF_COMMAND) & 0xffff;
        if (command != REQ_TRACKING) {
            throw bad(endpoint, "reply to command " + command + ", expected " + REQ_TRACKING + " (tracking)");
        }
        int sequence = b.getInt(OFF_REPLY_SEQUENCE);
        if (!sequences.test(sequence)) {
            throw bad(endpoint, String.format("reply with sequence number 0x%08x, which no request of this call"
                    + " sent", sequence));
        }
        int status = b.getShort(OFF_STATUS) & 0xffff;
        if (status != STT_SUCCESS) {
            String what = status < STATUS_NAMES.length ? STATUS_NAMES[status] : "unknown";
            throw bad(endpoint, "tracking refused: status " + status + " (" + what + ")");
        }
        int code = b.getShort(OFF_REPLY) & 0xffff;
        if (code != RPY_TRACKING) {
            throw bad(endpoint, "reply code " + code + ", expected " + RPY_TRACKING + " (RPY_TRACKING)");
        }
        if (length < TRACKING_REPLY_LENGTH) {
            throw bad(endpoint, "truncated tracking reply: " + length + " bytes, expected " + TRACKING_REPLY_LENGTH);
        }
        int leapStatus = b.getShort(OFF_LEAP_STATUS) & 0xffff;
        if (leapStatus >= ChronydTracking.Leap.values().length) {
            throw bad(endpoint, "leap status " + leapStatus + " is none of chrony's (0 to 3)");
        }
        long secHigh = b.getInt(OFF_REF_TIME) & 0xffffffffL;
        long secLow = b.getInt(OFF_REF_TIME + 4) & 0xffffffffL;
        long nsec = Math.min(b.getInt(OFF_REF_TIME + 8) & 0xffffffffL, 999_999_999L);
        long seconds = (secHigh == TV_NOHIGHSEC ? 0 : secHigh) << 32 | secLow;
        double[] f = new double[9];
        for (int i = 0; i < f.length; i++) {
            f[i] = decodeFloat(b.getInt(OFF_FLOATS + 4 * i));
        }
        return new ChronydTracking(b.getInt(OFF_REF_ID), address(b), b.getShort(OFF_STRATUM) & 0xffff,
                ChronydTracking.Leap.values()[leapStatus], Instant.ofEpochSecond(seconds, nsec),
                f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7], f[8], requested, received);
    }

    private static IOException bad(String endpoint, String what) {
        return new IOException("chronyd at " + endpoint + ": " + what);
    }

    /** The reference's IP address, or null where it has none (a reference clock, the local reference). */
    private static InetAddress address(ByteBuffer b) {
        int family = b.getShort(OFF_IP_FAMILY) & 0xffff;
        byte[] bytes = new byte[family == IPADDR_INET4 ? 4 : family == IPADDR_INET6 ? 16 : 0];
        if (bytes.length == 0) {
            return null;
        }
        b.get(OFF_IP_ADDR, bytes);
        try {
            return InetAddress.getByAddress(bytes);
        } catch (UnknownHostException e) {
            throw new AssertionError("4 or 16 bytes", e);
        }
    }

    /**
     * chrony's network float (util.c, UTI_FloatNetworkToHost), already in host order: the top 7 bits are a signed
     * exponent, the low 25 bits a signed coefficient, and the value is coefficient * 2^(exponent - 25), exactly.
     *
     * @param word the 32-bit word
     * @return its value
     */
    static double decodeFloat(int word) {
        int exponent = word >> 25; // arithmetic: sign-extends the 7-bit exponent
        int coefficient = word << 7 >> 7; // sign-extends the 25-bit coefficient
        return Math.scalb((double) coefficient, exponent - 25);
    }

    @Override
    public synchronized void close() throws IOException {
        closed = true;
        try {
            if (selector != null) {
                selector.close();
            }
        } finally {
            if (channel != null) {
                channel.close();
            }
        }
    }
}
