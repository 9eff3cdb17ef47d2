package org.timekeeping4j.testing;

import java.util.Optional;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;

/**
 * Prints every skipped test or class with its reason into the build log: surefire's summary counts skips
 * ("Skipped: 9") but names neither the test nor why. A failed assumption's message and a disabled test's reason
 * come out as {@code SKIPPED Class.method: reason}. Registered for the JUnit Platform launcher through
 * META-INF/services; cli's tests get it (class and registration) through core's test-jar.
 */
public final class SkipReasons implements TestExecutionListener {

    @Override
    public void executionSkipped(TestIdentifier test, String reason) {
        print(test, reason);
    }

    @Override
    public void executionFinished(TestIdentifier test, TestExecutionResult result) {
        if (result.getStatus() == TestExecutionResult.Status.ABORTED) {
            print(test, result.getThrowable().map(SkipReasons::message).orElse("aborted, no reason given"));
        }
    }

    private static String message(Throwable t) {
        return Optional.ofNullable(t.getMessage()).filter(m -> !m.isBlank()).orElse(t.getClass().getSimpleName())
                .replace("Assumption failed: ", "").replace('\n', ' ');
    }

    private static void print(TestIdentifier test, String reason) {
        System.out.println("SKIPPED " + name(test) + ": " + (reason == null || reason.isBlank()
                ? "(no reason given)" : reason));
        System.out.flush();
    }

    /** "SteeredAgreementTest.exactModeShould...()": the class's simple name and the display name. */
    private static String name(TestIdentifier test) {
        String id = test.getLegacyReportingName();
        return test.getSource().map(s -> s instanceof org.junit.platform.engine.support.descriptor.MethodSource m
                ? m.getClassName().substring(m.getClassName().lastIndexOf('.') + 1) + "." + id
                : s instanceof org.junit.platform.engine.support.descriptor.ClassSource c ? c.getClassName() : id)
                .orElse(id);
    }
}
