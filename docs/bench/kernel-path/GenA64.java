import org.timekeeping4j.arch.Arch;
import org.timekeeping4j.machine.ClockGettimeStub;

public class GenA64 {
    public static void main(String[] a) throws Exception {
        // machine is not exported: run on the class path (a64-stub-check.sh does).
        byte[] b = ClockGettimeStub.code(Arch.AARCH64, 0L);
        java.nio.file.Files.write(java.nio.file.Path.of("a64stub.bin"), b); // the literal (0) is patched by the check
        System.out.println(b.length);
    }
}
