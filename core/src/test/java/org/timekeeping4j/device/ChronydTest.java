package org.timekeeping4j.device;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.Test;

/**
 * chronyd's command protocol without chronyd: the float decoding against words chrony's own encoder wrote, the
 * request's bytes, the reply's validation, ClockBound's bound, and the UDP exchange against a fake daemon
 * (a dropped request, silence, nothing listening). {@code ChronydLiveTest} talks to a real chronyd.
 */
class ChronydTest {

    private static final String EP = "127.0.0.1:323";
    private static final int SEQ = 0xCAFE1234;
    private static final IntPredicate OURS = s -> s == SEQ;

    /**
     * Words from util.c's UTI_FloatHostToNetwork (chrony 4.x), derived by hand from its code and confirmed by that
     * function compiled from chrony's source (host order; the value the word decodes to exactly). 1.0: exponent
     * trunc(log2 1) + 1 = 1, coefficient 2^24 + 0.5 truncated, one over the 25-bit maximum, so shifted: 2^23 with
     * exponent 2. -1.0: the negative side holds 2^24 itself (-2^24 * 2^-24). 1e-6: exponent trunc(-19.93) + 1 =
     * -18, coefficient trunc(1e-6 * 2^43 + 0.5) = 8796093 (24 significant bits: the truncation toward zero costs
     * one). 1e101: overflow, the largest word. 1e-25: underflow, the coefficient shifted to exponent -64. 1e-28: 0.
     */
    @Test
    void shouldDecodeTheWordsChronysEncoderWrites() {
        assertThat(Chronyd.decodeFloat(0x00000000)).isEqualTo(0.0);
        assertThat(Chronyd.decodeFloat(0x04800000)).isEqualTo(1.0);
        assertThat(Chronyd.decodeFloat(0x03000000)).isEqualTo(-1.0);
        assertThat(Chronyd.decodeFloat(0x02800000)).isEqualTo(0.5);
        assertThat(Chronyd.decodeFloat(0x01000000)).isEqualTo(-0.5);
        assertThat(Chronyd.decodeFloat(0x06800000)).isEqualTo(2.0);
        assertThat(Chronyd.decodeFloat(0xDC8637BD)).isEqualTo(8796093 * 0x1p-43).isEqualTo(9.9999999747524271e-07);
        assertThat(Chronyd.decodeFloat(0x7EFFFFFF)).isEqualTo(((1 << 24) - 1) * 0x1p38);
        assertThat(Chronyd.decodeFloat(0x7F000000)).isEqualTo(-0x1p62);
        assertThat(Chronyd.decodeFloat(0x8000003D)).isEqualTo(61 * 0x1p-89).isEqualTo(9.8550815167450563e-26);
        // Values a live chronyd reported (chronyc -c tracking printed -0.000002455, 0.000006930, 0.728, -4.179).
        assertThat(Chronyd.decodeFloat(0xDF5B3F6C)).isEqualTo(-2.454999957990367e-06);
        assertThat(Chronyd.decodeFloat(0xE0E8883F)).isEqualTo(6.9299999267968815e-06);
        assertThat(Chronyd.decodeFloat(0x02BA5E35)).isEqualTo(0.7279999852180481);
        assertThat(Chronyd.decodeFloat(0x097A45A2)).isEqualTo(-4.1789999008178711);
        assertThat(Chronyd.decodeFloat(0x10F6E979)).isEqualTo(123.45600128173828);
        assertThat(Chronyd.decodeFloat(0x805E7284)).isEqualTo(9.9999996826552254e-21);
    }

    /** util.c's encoder, as written there (log, pow, truncating casts): what chronyd puts on the wire. */
    static int encodeLikeChrony(double x) {
        boolean neg = x < 0;
        x = Math.abs(x);
        int exp;
        int coef;
        if (x < 1.0e-100) {
            exp = coef = 0;
        } else if (x > 1.0e100) {
            exp = 63;
            coef = (1 << 24) - 1 + (neg ? 1 : 0);
        } else {
            exp = (int) (Math.log(x) / Math.log(2) + 1);
            coef = (int) (x * Math.pow(2.0, -exp + 25) + 0.5);
            while (coef > (1 << 24) - 1 + (neg ? 1 : 0)) {
                coef >>= 1;
                exp++;
            }
            if (exp > 63) {
                exp = 63;
                coef = (1 << 24) - 1 + (neg ? 1 : 0);
            } else if (exp < -64) {
                if (exp + 25 >= -64) {
                    coef >>= -64 - exp;
                    exp = -64;
                } else {
                    exp = coef = 0;
                }
            }
        }
        if (neg) {
            coef = -coef << 7 >>> 7;
        }
        return exp << 25 | coef;
    }

    @Test
    void shouldDecodeWithinTheEncodersPrecisionOverChronysRange() {
        java.util.Random r = new java.util.Random(45);
        for (int i = 0; i < 100_000; i++) {
            double x = (r.nextBoolean() ? -1 : 1) * Math.pow(10, -12 + 14 * r.nextDouble());
            int word = encodeLikeChrony(x);
            double back = Chronyd.decodeFloat(word);
            // 24 significant bits at least (25 minus the sign): half a unit in the 24th bit, relative.
            assertThat(Math.abs(back - x)).as("x=%s word=0x%08x back=%s", x, word, back)
                    .isLessThanOrEqualTo(Math.abs(x) * 0x1p-23);
            assertThat(Math.signum(back)).isEqualTo(Math.signum(x));
        }
    }

    @Test
    void shouldPadTheRequestToTheReplysLength() {
        ByteBuffer b = ByteBuffer.allocate(200);
        Chronyd.encodeRequest(b, Chronyd.REQ_TRACKING, 1, SEQ);
        assertThat(b.position()).isEqualTo(104);
        byte[] bytes = new byte[104];
        b.flip().get(bytes);
        assertThat(bytes[0]).isEqualTo((byte) 6); // version
        assertThat(bytes[1]).isEqualTo((byte) 1); // request
        assertThat(new byte[] {bytes[4], bytes[5]}).containsExactly(0, 33); // REQ_TRACKING
        assertThat(new byte[] {bytes[6], bytes[7]}).containsExactly(0, 1); // attempt
        assertThat(new byte[] {bytes[8], bytes[9], bytes[10], bytes[11]})
                .containsExactly(0xCA, 0xFE, 0x12, 0x34);
        for (int i = 12; i < 104; i++) {
            assertThat(bytes[i]).as("byte %d", i).isZero();
        }
    }

    /** A well-formed RPY_TRACKING reply: reference 192.0.2.1, stratum 3, leap normal. */
    static ByteBuffer reply(int sequence) {
        ByteBuffer b = ByteBuffer.allocate(Chronyd.TRACKING_REPLY_LENGTH);
        b.put((byte) 6).put((byte) 2).put((byte) 0).put((byte) 0);
        b.putShort((short) 33).putShort((short) 5).putShort((short) 0).putShort((short) 0).putShort((short) 0)
                .putShort((short) 0).putInt(sequence).putInt(0).putInt(0);
        b.putInt(0xC0000201).put(new byte[] {(byte) 192, 0, 2, 1}).put(new byte[12]).putShort((short) 1)
                .putShort((short) 0);
        b.putShort((short) 3).putShort((short) 0);
        b.putInt(0).putInt(1_796_567_830).putInt(227_770_654);
        int[] floats = {0xDF5B3F6C, 0x00000000, 0xDC8637BD, 0x02BA5E35, 0x097A45A2, 0x04800000, 0xE0E8883F,
            0xDC8637BD, 0x02800000};
        for (int f : floats) {
            b.putInt(f);
        }
        return b.flip();
    }

    @Test
    void shouldDecodeEveryField() throws IOException {
        ChronydTracking t = Chronyd.decode(reply(SEQ), EP, OURS, 10, 20);
        assertThat(t.referenceId()).isEqualTo(0xC0000201);
        assertThat(t.referenceAddress()).isEqualTo(InetAddress.getByAddress(new byte[] {(byte) 192, 0, 2, 1}));
        assertThat(t.stratum()).isEqualTo(3);
        assertThat(t.leap()).isEqualTo(ChronydTracking.Leap.NORMAL);
        assertThat(t.referenceTime()).isEqualTo(Instant.ofEpochSecond(1_796_567_830, 227_770_654));
        assertThat(t.currentCorrection()).isEqualTo(-2.454999957990367e-06);
        assertThat(t.lastOffset()).isZero();
        assertThat(t.rmsOffset()).isEqualTo(8796093 * 0x1p-43);
        assertThat(t.frequencyPpm()).isEqualTo(0.7279999852180481);
        assertThat(t.residualFrequencyPpm()).isEqualTo(-4.1789999008178711);
        assertThat(t.skewPpm()).isEqualTo(1.0);
        assertThat(t.rootDelay()).isEqualTo(6.9299999267968815e-06);
        assertThat(t.rootDispersion()).isEqualTo(8796093 * 0x1p-43);
        assertThat(t.lastUpdateInterval()).isEqualTo(0.5);
        assertThat(t.requestMonotonicNanos()).isEqualTo(10);
        assertThat(t.monotonicNanos()).isEqualTo(20);
        assertThat(t.synchronised()).isTrue();
        // 6.93e-6 / 2 + 1e-6 + 2.455e-6 (as decoded): 6.919999921... us, rounded up.
        assertThat(t.boundNanos()).isEqualTo(6920);
    }

    @Test
    void shouldReadTheLongTimeFormatsHighWord() throws IOException {
        ByteBuffer b = reply(SEQ);
        b.putInt(Chronyd.OFF_REF_TIME, 1).putInt(Chronyd.OFF_REF_TIME + 4, 5).putInt(Chronyd.OFF_REF_TIME + 8, -1);
        assertThat(Chronyd.decode(b, EP, OURS, 0, 0).referenceTime())
                .isEqualTo(Instant.ofEpochSecond((1L << 32) + 5, 999_999_999));
        b.putInt(Chronyd.OFF_REF_TIME, Chronyd.TV_NOHIGHSEC);
        assertThat(Chronyd.decode(b, EP, OURS, 0, 0).referenceTime().getEpochSecond()).isEqualTo(5);
    }

    @Test
    void shouldSayUnsynchronisedWithoutAReferenceOrWithTheLeapStatus() throws IOException {
        ByteBuffer b = reply(SEQ);
        b.putShort(Chronyd.OFF_LEAP_STATUS, (short) 3);
        assertThat(Chronyd.decode(b, EP, OURS, 0, 0).synchronised()).isFalse();
        b.putShort(Chronyd.OFF_LEAP_STATUS, (short) 1);
        ChronydTracking inserting = Chronyd.decode(b, EP, OURS, 0, 0);
        assertThat(inserting.leap()).isEqualTo(ChronydTracking.Leap.INSERT_SECOND);
        assertThat(inserting.synchronised()).isTrue();
        b.putInt(Chronyd.OFF_REF_ID, 0).putShort(Chronyd.OFF_IP_FAMILY, (short) 0);
        ChronydTracking none = Chronyd.decode(b, EP, OURS, 0, 0);
        assertThat(none.synchronised()).isFalse();
        assertThat(none.referenceAddress()).isNull();
    }

    private static void assertBad(ByteBuffer reply, String message) {
        assertThatThrownBy(() -> Chronyd.decode(reply, EP, OURS, 0, 0))
                .isInstanceOf(IOException.class)
                .hasMessage("chronyd at " + EP + ": " + message)
                .extracting(Throwable::getMessage).asString().doesNotContain("\n");
    }

    @Test
    void shouldRefuseATruncatedReply() {
        assertBad(reply(SEQ).limit(27), "truncated reply: 27 bytes, its header takes 28");
        assertBad(reply(SEQ).limit(103), "truncated tracking reply: 103 bytes, expected 104");
        assertBad(reply(SEQ).limit(28), "truncated tracking reply: 28 bytes, expected 104");
    }

    @Test
    void shouldRefuseAnotherVersionTypeCommandOrReply() {
        assertBad(reply(SEQ).put(0, (byte) 5), "reply of protocol version 5, expected 6");
        assertBad(reply(SEQ).put(1, (byte) 1), "not a command reply (packet type 1)");
        assertBad(reply(SEQ).put(2, (byte) 1), "not a command reply (packet type 2)");
        assertBad(reply(SEQ).putShort(4, (short) 14), "reply to command 14, expected 33 (tracking)");
        assertBad(reply(SEQ).putShort(6, (short) 1), "reply code 1, expected 5 (RPY_TRACKING)");
    }

    @Test
    void shouldRefuseAnotherSequenceNumber() {
        assertBad(reply(SEQ + 1), "reply with sequence number 0xcafe1235, which no request of this call sent");
    }

    @Test
    void shouldRefuseAFailedStatusOrAnUnknownLeapStatus() {
        assertBad(reply(SEQ).putShort(8, (short) 2), "tracking refused: status 2 (STT_UNAUTH)");
        assertBad(reply(SEQ).putShort(8, (short) 99), "tracking refused: status 99 (unknown)");
        assertBad(reply(SEQ).putShort(Chronyd.OFF_LEAP_STATUS, (short) 4), "leap status 4 is none of chrony's (0 to 3)");
    }

    @Test
    void shouldComputeClockBoundsBound() {
        assertThat(ChronydTracking.boundNanos(0, 0, 0)).isZero();
        // 2^-10 s / 2 + 2^-12 s + |-2^-13 s| = 488281.25 + 244140.625 + 122070.3125 ns, all exact in binary.
        assertThat(ChronydTracking.boundNanos(0x1p-10, 0x1p-12, -0x1p-13)).isEqualTo(854_493);
        assertThat(ChronydTracking.boundNanos(0x1p-10, 0x1p-12, 0x1p-13)).isEqualTo(854_493);
        // Decimal seconds are not exact: 1 ms / 2 + 250 us + 100 us sums to 850.00000000000006 us in doubles, so
        // 850,001 ns, as ClockBound's f64 arithmetic gives too (ceil never rounds down).
        assertThat(ChronydTracking.boundNanos(1e-3, 250e-6, -100e-6)).isEqualTo(850_001);
        // Rounded up, never down: 1.0000001 ns is 2 ns.
        assertThat(ChronydTracking.boundNanos(0, 1.0000001e-9, 0)).isEqualTo(2);
        assertThat(ChronydTracking.boundNanos(0, Chronyd.decodeFloat(0x7EFFFFFF), 0)).isEqualTo(Long.MAX_VALUE);
    }

    @Test
    void shouldParseEndpoints() {
        assertThat(Chronyd.parse("127.0.0.1:323")).isEqualTo(new InetSocketAddress("127.0.0.1", 323));
        assertThat(Chronyd.parse("[::1]:1323").getPort()).isEqualTo(1323);
        assertThat(Chronyd.parse("[::1]:1323").getAddress().isLoopbackAddress()).isTrue();
        assertThatThrownBy(() -> Chronyd.parse("127.0.0.1")).hasMessageContaining("expected host:port");
        assertThatThrownBy(() -> Chronyd.parse("127.0.0.1:0")).hasMessageContaining("port out of range");
        assertThatThrownBy(() -> Chronyd.parse("127.0.0.1:x")).hasMessageContaining("no number");
    }

    /** A fake daemon on a loopback port: answers each request it gets with what {@code answer} makes of it. */
    interface Answer {
        ByteBuffer to(int attempt, int sequence, int requestLength);
    }

    private static Thread fake(DatagramChannel server, Answer answer, List<String> seen) {
        Thread t = Thread.ofPlatform().daemon().start(() -> {
            ByteBuffer in = ByteBuffer.allocate(1024);
            try {
                while (true) {
                    SocketAddress from = server.receive(in.clear());
                    in.flip();
                    int attempt = in.getShort(Chronyd.OFF_ATTEMPT);
                    int sequence = in.getInt(Chronyd.OFF_REQUEST_SEQUENCE);
                    synchronized (seen) {
                        seen.add("attempt " + attempt + ", " + in.remaining() + " bytes, command "
                                + in.getShort(Chronyd.OFF_COMMAND));
                    }
                    ByteBuffer out = answer.to(attempt, sequence, in.remaining());
                    if (out != null) {
                        server.send(out, from);
                    }
                }
            } catch (IOException e) {
                // closed
            }
        });
        return t;
    }

    /**
     * What the fake saw, once it has seen {@code n} requests (it receives on its own thread; call before the
     * server channel closes, which drops what it has not received yet).
     */
    private static List<String> awaitSeen(List<String> seen, int n) {
        await().atMost(Duration.ofSeconds(60)).until(() -> {
            synchronized (seen) {
                return seen.size() >= n;
            }
        });
        synchronized (seen) {
            return List.copyOf(seen);
        }
    }

    private static Chronyd client(DatagramChannel server, Duration timeout) throws IOException {
        return Chronyd.udp((InetSocketAddress) server.getLocalAddress(), timeout, 2);
    }

    @Test
    void shouldRetryADroppedRequestWithANewSequenceNumber() throws Exception {
        List<String> seen = new ArrayList<>();
        AtomicInteger firstSequence = new AtomicInteger();
        try (DatagramChannel server = DatagramChannel.open().bind(new InetSocketAddress("127.0.0.1", 0))) {
            fake(server, (attempt, sequence, length) -> {
                if (attempt == 0) {
                    firstSequence.set(sequence);
                    return null; // dropped
                }
                assertThat(sequence).isNotEqualTo(firstSequence.get());
                return reply(sequence);
            }, seen);
            try (Chronyd c = client(server, Duration.ofMillis(200))) {
                ChronydTracking t = c.tracking();
                assertThat(t.stratum()).isEqualTo(3);
                assertThat(t.monotonicNanos()).isGreaterThanOrEqualTo(t.requestMonotonicNanos());
            }
            assertThat(awaitSeen(seen, 2))
                    .containsExactly("attempt 0, 104 bytes, command 33", "attempt 1, 104 bytes, command 33");
        }
    }

    @Test
    void shouldNameTheEndpointWhenNothingAnswers() throws Exception {
        List<String> seen = new ArrayList<>();
        try (DatagramChannel server = DatagramChannel.open().bind(new InetSocketAddress("127.0.0.1", 0))) {
            fake(server, (attempt, sequence, length) -> null, seen);
            int port = ((InetSocketAddress) server.getLocalAddress()).getPort();
            try (Chronyd c = client(server, Duration.ofMillis(100))) {
                assertThatThrownBy(c::tracking).isInstanceOf(IOException.class)
                        .hasMessage("chronyd at 127.0.0.1:" + port + ": no reply to 2 tracking requests in 200 ms");
            }
            // Both requests were sent before the call gave up; the fake, on its own thread, may see them later
            // (qemu-user's aarch64 JVM in CI: after the call had returned).
            assertThat(awaitSeen(seen, 2))
                    .containsExactly("attempt 0, 104 bytes, command 33", "attempt 1, 104 bytes, command 33");
        }
    }

    @Test
    void shouldNameTheEndpointWhereNothingListens() throws Exception {
        int port;
        try (DatagramChannel gone = DatagramChannel.open().bind(new InetSocketAddress("127.0.0.1", 0))) {
            port = ((InetSocketAddress) gone.getLocalAddress()).getPort();
        }
        try (Chronyd c = Chronyd.udp(new InetSocketAddress("127.0.0.1", port), Duration.ofMillis(300), 2)) {
            assertThatThrownBy(c::tracking).isInstanceOf(IOException.class)
                    .hasMessageStartingWith("chronyd at 127.0.0.1:" + port + ": ");
        }
    }

    @Test
    void shouldRefuseAReplyForAnotherRequestOverTheWire() throws Exception {
        try (DatagramChannel server = DatagramChannel.open().bind(new InetSocketAddress("127.0.0.1", 0))) {
            fake(server, (attempt, sequence, length) -> reply(sequence ^ 1), new ArrayList<>());
            try (Chronyd c = client(server, Duration.ofMillis(300))) {
                assertThatThrownBy(c::tracking).isInstanceOf(IOException.class)
                        .hasMessageContaining("which no request of this call sent");
            }
        }
    }
}
