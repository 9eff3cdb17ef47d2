// Sources: what serves each counter clock of Clocks.nanos (tk4j's --path fast) in a fresh JVM, as Clocks.servingPaths()
// reports it once it has left "starting" (the tracker needs 1-3 s here before its counter serves; exact mode serves at
// once), or after 10 s. Run by scripts/chrony-agreement.sh:
//   java --enable-native-access=ALL-UNNAMED -cp cli/target/tk4j.jar scripts/chrony/Sources.java
import java.util.List;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.ServingPath;
import org.timekeeping4j.Clocks;

public final class Sources {
    public static void main(String[] args) throws InterruptedException {
        List<ClockId> clocks = List.of(ClockId.REALTIME, ClockId.MONOTONIC, ClockId.BOOTTIME, ClockId.TAI,
                ClockId.MONOTONIC_RAW);
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (System.nanoTime() < deadline && clocks.stream().anyMatch(c -> {
            Clocks.nanos(c);
            return Clocks.servingPaths().get(c).reason().contains("starting");
        })) {
            Thread.sleep(100);
        }
        for (ClockId c : clocks) {
            ServingPath s = Clocks.servingPaths().get(c);
            System.out.printf("%-14s %-7s %s%n", c, s.path(), s.reason());
        }
    }
}
