package org.timekeeping4j;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.lang.module.ModuleDescriptor;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.lang.reflect.TypeVariable;
import java.lang.reflect.WildcardType;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The module's exported API, read by reflection from the compiled classes and the compiled module descriptor
 * (tests run on the class path, so the descriptor is read as a file, not through {@code Module}).
 *
 * <p>A modular application sees only the packages exported without qualification; a public signature that names
 * a type from any other package of this module compiles for us but is unusable for it (it cannot name the type,
 * and reflection on the value fails). Every public or protected member of every public type in an exported
 * package is checked: superclass, interfaces, fields, constructors, methods (return, parameters, exceptions,
 * generic bounds and arguments), record components and nested types.
 *
 * <p>Two more promises: each exported package holds exactly the public types its package-info describes (an
 * allow-list, so a new public type is a decision, not an accident), and no exported member takes or returns a raw
 * address or a handle over native code: the JVM grants native access to this module, and such a member would
 * hand it to every caller (a class-path caller could read any address, or crash the JVM).
 */
class ExportedApiTest {

    private static final String ROOT = "org.timekeeping4j";

    /** The public types of each exported package, nested ones as Outer.Inner: what its package-info promises. */
    private static final Map<String, Set<String>> PUBLIC_TYPES = Map.of(
            ROOT, Set.of("ClockId", "ClockReader", "Clocks", "CrossTimestamp", "Diagnostics", "Diagnostics.VdsoData",
                    "Diagnostics.Serving", "Diagnostics.Ticks", "Diagnostics.Stage", "EventRecorder",
                    "EventRecorder.EventConsumer", "EventRecorder.TickConsumer", "KernelClocks", "Snapshot",
                    "SyncStatus", "SyncStatus.ClockState", "SyncStatus.StatusFlag", "TimeSpec"),
            ROOT + ".device", Set.of("BoundedClock", "DeviceException", "PpsEvent", "PpsSource", "PtpCapabilities",
                    "PtpClock", "PtpClock.Method", "FastPtpClock", "PtpOffset", "TimeBounds", "TimeBounds.Status", "TimeBounds.Disruption", "VmClock",
                    "VmClockPage"));

    /** Parameter names that mean a raw address when the parameter is a long. */
    private static final Set<String> ADDRESS_NAMES = Set.of("address", "addr", "ptr");

    private static Path classes;
    private static ModuleDescriptor descriptor;
    private static Set<String> exported;

    @BeforeAll
    static void readDescriptor() throws IOException, URISyntaxException {
        classes = Path.of(Clocks.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        try (InputStream in = Files.newInputStream(classes.resolve("module-info.class"))) {
            descriptor = ModuleDescriptor.read(in);
        }
        exported = descriptor.exports().stream()
                .filter(e -> !e.isQualified())
                .map(ModuleDescriptor.Exports::source)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    @Test
    void shouldExportExactlyTheDocumentedApiPackages() {
        assertThat(descriptor.name()).isEqualTo(ROOT);
        assertThat(exported).containsExactlyInAnyOrder(ROOT, ROOT + ".device");
    }

    @Test
    void shouldExportInternalPackagesOnlyToTheCliAndTheSimulation() {
        List<String> qualified = descriptor.exports().stream()
                .filter(ModuleDescriptor.Exports::isQualified)
                .map(e -> e.source() + " to " + String.join(",", new TreeSet<>(e.targets())))
                .sorted()
                .toList();
        String cli = ROOT + ".cli";
        String simulation = ROOT + ".simulation";
        assertThat(qualified).containsExactly(ROOT + ".adjust to " + simulation, ROOT + ".arch to " + simulation,
                ROOT + ".clocksource to " + simulation, ROOT + ".config to " + cli + "," + simulation,
                ROOT + ".linux to " + cli + "," + simulation, ROOT + ".machine to " + simulation,
                ROOT + ".timekeeper to " + simulation);
        assertThat(descriptor.opens()).as("opens").isEmpty();
    }

    @Test
    void shouldNameOnlyExportedOrPlatformTypesInEveryExportedSignature() throws Exception {
        List<String> leaks = new ArrayList<>();
        int checkedTypes = 0;
        for (String pkg : exported) {
            for (Class<?> type : publicTypesOf(pkg)) {
                checkedTypes++;
                checkType(type, leaks);
            }
        }
        // Guards against the walk finding nothing (wrong directory) and passing vacuously.
        assertThat(checkedTypes).as("public types checked").isGreaterThan(20);
        assertThat(leaks).as("exported signatures naming unexported types").isEmpty();
    }

    @Test
    void shouldFlagASignatureThatNamesAnUnexportedType() throws Exception {
        // The checker itself: a public method returning a type from the unexported linux package is a leak.
        List<String> leaks = new ArrayList<>();
        checkType(LeakingForTest.class, leaks);
        assertThat(leaks).singleElement().asString().contains("linux.Platform");
    }

    /**
     * The exported public types, nested ones counted: at most 32, so the API stays small enough to read in one
     * sitting. A new type replaces one. (30 at the 1.0 shape; issue 45 added TimeBounds.Disruption, what a VMClock
     * page says is coming, and issue 47 FastPtpClock, a PHC read at counter speed: ideas no other type carried.)
     */
    private static final int EXPORTED_TYPES_AT_MOST = 32;

    @Test
    void theExportedTypesWithTheNestedOnesShouldNotGrow() throws Exception {
        List<String> all = new ArrayList<>();
        for (String pkg : exported) {
            publicTypesOf(pkg).forEach(t -> all.add(t.getName()));
        }
        assertThat(all).as("exported public types, nested ones counted").hasSizeLessThanOrEqualTo(EXPORTED_TYPES_AT_MOST);
    }

    @Test
    void shouldHoldExactlyTheAllowedPublicTypesInEachExportedPackage() throws Exception {
        assertThat(PUBLIC_TYPES.keySet()).as("allow-listed packages").isEqualTo(exported);
        for (String pkg : exported) {
            Set<String> names = publicTypesOf(pkg).stream()
                    .map(t -> t.getName().substring(pkg.length() + 1).replace('$', '.'))
                    .collect(Collectors.toCollection(TreeSet::new));
            assertThat(names).as("public types of %s (a new one belongs in its package-info and here)", pkg)
                    .containsExactlyInAnyOrderElementsOf(PUBLIC_TYPES.get(pkg));
        }
    }

    @Test
    void shouldTakeNoRawAddressAndHandOutNoHandleInAnyExportedMember() throws Exception {
        List<String> leaks = new ArrayList<>();
        int checkedMembers = 0;
        for (String pkg : exported) {
            for (Class<?> type : publicTypesOf(pkg)) {
                checkedMembers += checkNative(type, leaks);
            }
        }
        assertThat(checkedMembers).as("exported members checked").isGreaterThan(150);
        assertThat(leaks).as("exported members taking or returning a raw address or a native handle").isEmpty();
    }

    @Test
    void shouldFlagAPlantedRawAddressOrHandle() throws Exception {
        // The checker itself, on a planted leak of each kind: it must name every one.
        assertThat(LeakingForTest.class.getMethod("read", long.class, long.class).getParameters()[0].isNamePresent())
                .as("parameter names compiled in (maven-compiler-plugin parameters=true)").isTrue();
        List<String> leaks = new ArrayList<>();
        checkNative(LeakingForTest.class, leaks);
        String t = LeakingForTest.class.getName();
        assertThat(leaks).containsExactlyInAnyOrder(
                t + ".SEGMENT: java.lang.foreign.MemorySegment",
                t + ".handle returns: java.lang.invoke.MethodHandle",
                t + ".read parameter address: a raw address",
                t + ".write parameter segment: java.lang.foreign.MemorySegment",
                t + ".write parameter ptr: a raw address");
    }

    /** A public type whose public method names an unexported type (test fixture for the checker). */
    public static final class LeakingForTest {
        /** A native segment in a public field. */
        public static final java.lang.foreign.MemorySegment SEGMENT = null;

        /** @return a type a modular application cannot name */
        public org.timekeeping4j.linux.Platform platform() {
            return null;
        }

        /** @return a handle over native code */
        public static java.lang.invoke.MethodHandle handle() {
            return null;
        }

        /**
         * @param address a raw address
         * @param limit   not an address
         * @return what lies there
         */
        public static long read(long address, long limit) {
            return address + limit;
        }

        /**
         * @param segment a native segment
         * @param ptr     a raw address
         */
        public void write(java.lang.foreign.MemorySegment segment, long ptr) {
        }

        /** @param nanos not an address */
        public void fine(long nanos) {
        }
    }

    /** Adds each raw-address or handle member of {@code type} (and its nested types) to leaks; returns how many it checked. */
    private static int checkNative(Class<?> type, List<String> leaks) {
        String where = type.getName();
        int checked = 0;
        for (Field f : type.getDeclaredFields()) {
            if (isApi(f.getModifiers(), type) && !f.isSynthetic()) {
                checked++;
                nativeType(where + "." + f.getName(), f.getGenericType(), leaks);
            }
        }
        List<Executable> executables = new ArrayList<>(List.of(type.getDeclaredConstructors()));
        executables.addAll(List.of(type.getDeclaredMethods()));
        for (Executable e : executables) {
            if (!isApi(e.getModifiers(), type) || e.isSynthetic() || e instanceof Method m && m.isBridge()) {
                continue;
            }
            checked++;
            String name = where + "." + (e instanceof Method ? e.getName() : "<init>");
            if (e instanceof Method m) {
                nativeType(name + " returns", m.getGenericReturnType(), leaks);
            }
            for (Parameter p : e.getParameters()) {
                nativeType(name + " parameter " + p.getName(), p.getParameterizedType(), leaks);
                if (p.getType() == long.class && ADDRESS_NAMES.contains(p.getName())) {
                    leaks.add(name + " parameter " + p.getName() + ": a raw address");
                }
            }
        }
        for (Class<?> nested : type.getDeclaredClasses()) {
            if (isVisible(nested)) {
                checked += checkNative(nested, leaks);
            }
        }
        return checked;
    }

    /** A type that carries native access: a segment, a method or var handle, or a generic or array of one. */
    private static void nativeType(String where, Type type, List<String> leaks) {
        switch (type) {
            case Class<?> c when c.isArray() -> nativeType(where, c.getComponentType(), leaks);
            case Class<?> c -> {
                if (c == java.lang.foreign.MemorySegment.class || c == java.lang.invoke.MethodHandle.class
                        || c == java.lang.invoke.VarHandle.class || c == java.lang.foreign.SymbolLookup.class) {
                    leaks.add(where + ": " + c.getName());
                }
            }
            case ParameterizedType p -> {
                nativeType(where, p.getRawType(), leaks);
                for (Type a : p.getActualTypeArguments()) {
                    nativeType(where, a, leaks);
                }
            }
            case GenericArrayType a -> nativeType(where, a.getGenericComponentType(), leaks);
            case WildcardType w -> {
                for (Type b : w.getUpperBounds()) {
                    nativeType(where, b, leaks);
                }
            }
            default -> { }
        }
    }

    private static List<Class<?>> publicTypesOf(String pkg) throws IOException, ClassNotFoundException {
        Path dir = classes.resolve(pkg.replace('.', '/'));
        List<Class<?>> types = new ArrayList<>();
        List<String> names;
        try (Stream<Path> files = Files.list(dir)) {
            names = files.map(p -> p.getFileName().toString())
                    .filter(n -> n.endsWith(".class") && !n.equals("package-info.class"))
                    .map(n -> pkg + "." + n.substring(0, n.length() - ".class".length()))
                    .sorted()
                    .toList();
        }
        for (String name : names) {
            Class<?> type = Class.forName(name, false, ExportedApiTest.class.getClassLoader());
            if (isVisible(type)) {
                types.add(type);
            }
        }
        return types;
    }

    /** Public at every level of nesting: what another module can see in an exported package. */
    private static boolean isVisible(Class<?> type) {
        for (Class<?> c = type; c != null; c = c.getDeclaringClass()) {
            if (!Modifier.isPublic(c.getModifiers())) {
                return false;
            }
        }
        return !type.isSynthetic() && !type.isAnonymousClass() && !type.isLocalClass();
    }

    private static void checkType(Class<?> type, List<String> leaks) {
        String where = type.getName();
        check(where + " extends", type.getGenericSuperclass(), leaks);
        for (Type i : type.getGenericInterfaces()) {
            check(where + " implements", i, leaks);
        }
        for (TypeVariable<?> v : type.getTypeParameters()) {
            checkAll(where + "<" + v.getName() + ">", v.getBounds(), leaks);
        }
        for (Field f : type.getDeclaredFields()) {
            if (isApi(f.getModifiers(), type) && !f.isSynthetic()) {
                check(where + "." + f.getName(), f.getGenericType(), leaks);
            }
        }
        for (Constructor<?> c : type.getDeclaredConstructors()) {
            if (isApi(c.getModifiers(), type) && !c.isSynthetic()) {
                checkExecutable(where + ".<init>", c, leaks);
            }
        }
        for (Method m : type.getDeclaredMethods()) {
            if (isApi(m.getModifiers(), type) && !m.isSynthetic() && !m.isBridge()) {
                check(where + "." + m.getName() + " returns", m.getGenericReturnType(), leaks);
                checkExecutable(where + "." + m.getName(), m, leaks);
            }
        }
        if (type.isRecord()) {
            for (RecordComponent rc : type.getRecordComponents()) {
                check(where + "." + rc.getName() + " component", rc.getGenericType(), leaks);
            }
        }
        for (Class<?> nested : type.getDeclaredClasses()) {
            if (isVisible(nested)) {
                checkType(nested, leaks);
            }
        }
    }

    /** Public members, and protected ones of a class another module can extend. */
    private static boolean isApi(int modifiers, Class<?> owner) {
        return Modifier.isPublic(modifiers)
                || (Modifier.isProtected(modifiers) && !Modifier.isFinal(owner.getModifiers()) && !owner.isSealed());
    }

    private static void checkExecutable(String where, Executable e, List<String> leaks) {
        checkAll(where + " parameter", e.getGenericParameterTypes(), leaks);
        checkAll(where + " throws", e.getGenericExceptionTypes(), leaks);
        for (TypeVariable<?> v : e.getTypeParameters()) {
            checkAll(where + "<" + v.getName() + ">", v.getBounds(), leaks);
        }
    }

    private static void checkAll(String where, Type[] types, List<String> leaks) {
        for (Type t : types) {
            check(where, t, leaks);
        }
    }

    private static void check(String where, Type type, List<String> leaks) {
        switch (type) {
            case null -> { }
            case Class<?> c when c.isArray() -> check(where, c.getComponentType(), leaks);
            case Class<?> c -> {
                String pkg = c.getPackageName();
                if (pkg.startsWith(ROOT) && !exported.contains(pkg)) {
                    leaks.add(where + ": " + c.getName());
                }
            }
            case ParameterizedType p -> {
                check(where, p.getRawType(), leaks);
                check(where, p.getOwnerType(), leaks);
                checkAll(where, p.getActualTypeArguments(), leaks);
            }
            case GenericArrayType a -> check(where, a.getGenericComponentType(), leaks);
            case WildcardType w -> {
                checkAll(where, w.getUpperBounds(), leaks);
                checkAll(where, w.getLowerBounds(), leaks);
            }
            case TypeVariable<?> v -> { } // its bounds are checked where it is declared
            default -> leaks.add(where + ": unexpected type " + type);
        }
    }
}
