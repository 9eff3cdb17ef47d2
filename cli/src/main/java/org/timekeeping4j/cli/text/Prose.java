package org.timekeeping4j.cli.text;

/**
 * A sentence for people inside a {@code --json} object: written there as an array of its lines, each fitting the
 * output's width (join them with a blank for the sentence), so that a field's type never depends on its length.
 * Human output prints {@link #toString()}, the sentence itself.
 *
 * @param text the sentence
 */
public record Prose(String text) {

    /** {@return the sentence} */
    @Override
    public String toString() {
        return text;
    }
}
