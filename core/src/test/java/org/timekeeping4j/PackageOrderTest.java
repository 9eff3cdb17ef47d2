package org.timekeeping4j;

import static com.tngtech.archunit.library.Architectures.layeredArchitecture;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.library.Architectures.LayeredArchitecture;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.timekeeping4j.arch.Arch;
import org.timekeeping4j.linux.UpwardImportForTest;

/**
 * The packages of the core module form one order (docs/ARCHITECTURE.md draws it): each imports only packages
 * below it, and no set of packages imports itself round. ArchUnit reads the compiled main classes.
 *
 * <p>Two dependencies go upward, named here with their reasons, and no other:
 * <ul>
 *   <li><b>{@link ClockId}</b>: the public API's name of a clock stays in the root package (it is what users
 *       write), and the packages below the root serve clocks by it. ClockId imports nothing of this library, so
 *       the edge closes no cycle through code: a type at the root that every package may name.</li>
 *   <li><b>{@link Diagnostics}</b> and its records: the serving backends fill the public description of
 *       themselves directly (one set of types, not a private twin copied field by field). Diagnostics imports
 *       only {@code clocksource.MultShift}, below serving, so this edge closes no cycle either.</li>
 * </ul>
 */
class PackageOrderTest {

    private static final String ROOT = "org.timekeeping4j";

    /** The order, lowest first: a package may import only those before it. */
    static final List<String> ORDER = List.of("linux", "config", "arch", "machine", "clocksource", "adjust",
            "timekeeper", "vdso", "disruption", "serving", "root", "device");

    private static JavaClasses classes;

    @BeforeAll
    static void importMainClasses() {
        classes = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages(ROOT);
    }

    /** The upward edges into the root: {@link ClockId}, and {@link Diagnostics} with its nested records. */
    private static final DescribedPredicate<JavaClass> UPWARD = JavaClass.Predicates.equivalentTo(ClockId.class)
            .or(JavaClass.Predicates.belongToAnyOf(Diagnostics.class));

    static LayeredArchitecture order() {
        LayeredArchitecture rule = layeredArchitecture().consideringOnlyDependenciesInLayers();
        for (String layer : ORDER) {
            rule = rule.layer(layer).definedBy(layer.equals("root") ? ROOT : ROOT + "." + layer + "..");
        }
        for (int i = 0; i < ORDER.size(); i++) {
            String[] above = ORDER.subList(i + 1, ORDER.size()).toArray(String[]::new);
            rule = above.length == 0 ? rule.whereLayer(ORDER.get(i)).mayNotBeAccessedByAnyLayer()
                    : rule.whereLayer(ORDER.get(i)).mayOnlyBeAccessedByLayers(above);
        }
        return rule
                .ignoreDependency(DescribedPredicate.alwaysTrue(), UPWARD);
    }

    static ArchRule noCycles() {
        return slices().matching(ROOT + ".(*)..").should().beFreeOfCycles();
    }

    @Test
    void shouldHaveNoPackageCycle() {
        noCycles().check(classes);
    }

    @Test
    void shouldImportOnlyDownwardInTheDocumentedOrder() {
        order().check(classes);
    }

    @Test
    void shouldPlaceEveryPackageInTheOrder() {
        List<String> packages = classes.stream().map(JavaClass::getPackageName).distinct()
                .map(p -> p.equals(ROOT) ? "root" : p.substring(ROOT.length() + 1).split("\\.")[0])
                .distinct().sorted().toList();
        assertThat(ORDER).containsExactlyInAnyOrderElementsOf(packages);
    }

    @Test
    void shouldRefuseAnUpwardImport() {
        // The rules themselves: a class in linux (a test fixture) that imports clocksource is refused.
        JavaClasses withUpward = new ClassFileImporter().importClasses(UpwardImportForTest.class, Arch.class);
        assertThat(order().evaluate(withUpward).hasViolation()).isTrue();
        assertThat(Arrays.stream(order().evaluate(withUpward).getFailureReport().getDetails().toArray(String[]::new)))
                .anyMatch(d -> d.contains("UpwardImportForTest") && d.contains("Arch"));
    }
}
