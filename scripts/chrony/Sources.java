// Sources: what serves each counter clock of Clocks.nanos (tk4j's --path fast) in a fresh JVM, as Clocks.diagnostics()
// reports it (decided once per process: exact mode or the kernel's clock_gettime). Run by scripts/chrony-agreement.sh:
//   java --enable-native-access=ALL-UNNAMED -cp cli/target/tk4j.jar scripts/chrony/Sources.java
import java.util.List;
import org.timekeeping4j.ClockId;
import org.timekeeping4j.Diagnostics;
import org.timekeeping4j.Clocks;

public final class Sources {
    public static void main(String[] args) {
        List<ClockId> clocks = List.of(ClockId.REALTIME, ClockId.MONOTONIC, ClockId.BOOTTIME, ClockId.TAI,
                ClockId.MONOTONIC_RAW);
        for (ClockId c : clocks) {
            Diagnostics.Serving s = Clocks.diagnostics().clocks().get(c);
            System.out.printf("%-14s %-7s %s%n", c, s.fromCounter() ? "COUNTER" : "KERNEL", s.why());
        }
    }
}
