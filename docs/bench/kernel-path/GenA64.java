import java.lang.reflect.Method;
public class GenA64 {
    public static void main(String[] a) throws Exception {
        Class<?> c = Class.forName("org.timekeeping4j.linux.ClockGettime");
        Method m = c.getDeclaredMethod("a64Stub", long.class);
        m.setAccessible(true);
        byte[] b = (byte[]) m.invoke(null, 0L);
        java.nio.file.Files.write(java.nio.file.Path.of("a64stub.bin"), b); // the literal (0) is patched by the check
        System.out.println(b.length);
    }
}
