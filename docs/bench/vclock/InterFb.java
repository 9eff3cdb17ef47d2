import org.timekeeping4j.*;
import org.timekeeping4j.vdso.KernelVdso;
import org.timekeeping4j.machine.VdsoStub;
import java.nio.file.*;
/** Interleaved rounds: exact mode found on tsc (vclock=off), then kvm-clock: every read falls back. */
public class InterFb {
  static long sink;
  public static void main(String[] a) throws Exception {
    int rounds = Integer.parseInt(a[0]); int n = 1_000_000;
    Clocks.nanos(ClockId.MONOTONIC);
    Path cs = Path.of("/sys/devices/system/clocksource/clocksource0/current_clocksource");
    Files.writeString(cs, "kvm-clock");
    try {
      System.out.println("# " + Clocks.diagnostics().vdsoData().vclock());
      String[] names = {"nanoTime", "nanos(MONO) one downcall", "two downcalls", "kernelNanos(MONO)"};
      double[][] r = new double[names.length][rounds];
      for (int round = -3; round < rounds; round++) {
        for (int k = 0; k < names.length; k++) {
          long t0 = System.nanoTime(); long s = 0;
          switch (k) {
            case 0 -> { for (int i = 0; i < n; i++) s += System.nanoTime(); }
            case 1 -> { for (int i = 0; i < n; i++) s += Clocks.nanos(ClockId.MONOTONIC); }
            case 2 -> { for (int i = 0; i < n; i++) { long v = KernelVdso.monotonicWithoutOwnFallback(); s += v != VdsoStub.FALLBACK ? v : KernelClocks.nanos(ClockId.MONOTONIC); } }
            default -> { for (int i = 0; i < n; i++) s += KernelClocks.nanos(ClockId.MONOTONIC); }
          }
          long t1 = System.nanoTime(); sink += s;
          if (round >= 0) r[k][round] = (t1 - t0) / (double) n;
        }
      }
      for (int k = 0; k < names.length; k++) {
        double[] v = r[k].clone(); java.util.Arrays.sort(v);
        double[] q = new double[rounds]; for (int i = 0; i < rounds; i++) q[i] = r[k][i] / r[0][i]; java.util.Arrays.sort(q);
        System.out.printf("%-26s median %.2f ns (min %.2f), per-round ratio to nanoTime median %.3f%n", names[k], v[v.length / 2], v[0], q[rounds / 2]);
      }
      double[] q = new double[rounds]; for (int i = 0; i < rounds; i++) q[i] = r[1][i] / r[2][i]; java.util.Arrays.sort(q);
      System.out.printf("one/two downcalls per round: median %.3f [%.3f..%.3f]%n", q[rounds/2], q[0], q[rounds-1]);
    } finally {
      Files.writeString(cs, "tsc");
    }
  }
}
