package org.timekeeping4j.cli.verify;

/** A check's outcome. SKIPPED is not success: the check could not run here. */
public enum Status {
    OK, FAILED, SKIPPED
}
