// A cold JVM's first read, then the time until exact mode serves, with discovery's cost by phase (development
// aid; docs/PERFORMANCE.md, "Discovery's cost by phase"). From the repository root after mvn -B -q -pl core compile:
//   scripts/java25 javac -cp core/target/classes -d /tmp/dc docs/bench/discovery/DiscoveryCost.java
//   scripts/java25 --enable-native-access=ALL-UNNAMED -cp core/target/classes:/tmp/dc DiscoveryCost
// One line: first-read ms, exact-serving ms after the first read, discovery's wall and CPU ms, then per phase
// "name=wall/cpu" in ms.
import java.time.Duration;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Clocks;
import org.timekeeping4j.serving.FastPath;
import org.timekeeping4j.vdso.DiscoveryPhases;

public class DiscoveryCost {
    public static void main(String[] args) {
        long t0 = System.nanoTime();
        Clocks.nanos(ClockId.MONOTONIC);
        long t1 = System.nanoTime();
        boolean exact = Clocks.awaitExactMode(Duration.ofSeconds(5));
        long t2 = System.nanoTime();
        DiscoveryPhases.Report r = DiscoveryPhases.last();
        if (r == null) {
            System.out.println("discovery did not finish within 5 s: " + FastPath.reason());
            return;
        }
        StringBuilder s = new StringBuilder();
        s.append(String.format("first %.1f exact %s %.1f (await %.1f) wall %.1f cpu %.1f", (t1 - t0) / 1e6,
                exact, (FastPath.since() - FastPath.firstUse()) / 1e6, (t2 - t0) / 1e6, r.total() / 1e6,
                r.totalCpu() / 1e6));
        for (int i = 0; i < DiscoveryPhases.Report.phases(); i++) {
            s.append(String.format(" | %s=%.1f/%.1f", DiscoveryPhases.Report.name(i), r.wallNanos()[i] / 1e6,
                    r.cpuNanos()[i] / 1e6));
        }
        System.out.println(s);
    }
}
