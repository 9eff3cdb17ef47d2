package org.timekeeping4j.device;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Clocks;
import org.timekeeping4j.EventRecorder;
import org.timekeeping4j.disruption.Disruptions;

/**
 * A disruption the library sees through a VMClock page makes every conversion of an earlier tick inexact: the
 * events an EventRecorder holds from before it export extrapolated.
 */
class VmClockDisruptionFenceTest {

    @TempDir
    Path dir;

    @Test
    void eventsRecordedBeforeASeenDisruptionExportInexact() throws Exception {
        Path file = dir.resolve("page");
        try (VmClockPageWriter w = VmClockPageWriter.valid(file)) {
            w.begin();
            w.kind(0xff, 0, 0, 0, 7);
            w.end();
            check(w, VmClock.open(file));
        }
    }

    private static void check(VmClockPageWriter w, VmClock opened) throws Exception {
        try (VmClock clock = opened) {
            // Opening took the marker as the baseline; reading it again is no disruption.
            long seen = Disruptions.count();
            assertThat(clock.disruptionMarker()).isEqualTo(7);
            assertThat(Disruptions.count()).isEqualTo(seen);
            EventRecorder recorder = new EventRecorder(16);
            recorder.record(1);
            long before = Clocks.ticks();
            assertThat(Disruptions.before(before)).isFalse();

            w.begin();
            w.marker(8); // a live migration
            w.end();
            assertThat(Disruptions.before(before)).as("not seen until the page is read").isFalse();
            assertThat(clock.disruptedSince(7, 0)).isTrue(); // the library sees it here
            assertThat(Disruptions.count()).isEqualTo(seen + 1);
            assertThat(Disruptions.before(before)).isTrue();
            assertThat(clock.disruptedSince(8, 0)).isFalse();
            assertThat(Disruptions.count()).as("the same marker again is no new disruption").isEqualTo(seen + 1);
            long after = Clocks.ticks();
            assertThat(Disruptions.before(after)).isFalse();
            recorder.record(2);

            List<String> exported = new ArrayList<>();
            recorder.export(ClockId.MONOTONIC, (nanos, payload, extrapolated) -> exported.add(payload + " " + extrapolated));
            assertThat(exported).hasSize(2);
            assertThat(exported.get(0)).isEqualTo("1 true");
            // The later event is judged by the serving mode's own rule only (its window may have passed).
            assertThat(exported.get(1)).startsWith("2 ");

            // A generation change where the page has one counts too.
            w.begin();
            w.kind(0xff, 0, 0, VmClock.FLAG_VM_GEN_COUNTER_PRESENT, 8);
            w.vmGeneration(3);
            w.end();
            clock.disruptionMarker();
            clock.vmGenerationCounter();
            assertThat(Disruptions.count()).isEqualTo(seen + 2);
            assertThat(Disruptions.before(after)).isTrue();
        }
    }
}
