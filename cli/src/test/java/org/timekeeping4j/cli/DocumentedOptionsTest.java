package org.timekeeping4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Every option of every command is in the docs a message sends the user to (docs/CLI.md, docs/DEVICES.md): an error
 * names an option ("-t/--duration -5: ..."), and the reader must find it there.
 */
class DocumentedOptionsTest {

    @Test
    void everyOptionOfEveryCommandIsInTheDocs() throws IOException {
        String docs = Files.readString(Path.of("..", "docs", "CLI.md")) + Files.readString(Path.of("..", "docs",
                "DEVICES.md"));
        TreeSet<String> options = new TreeSet<>();
        List<CommandLine> commands = new ArrayList<>(List.of(new CommandLine(new Tk4j())));
        for (int i = 0; i < commands.size(); i++) {
            commands.addAll(commands.get(i).getSubcommands().values());
            for (CommandLine.Model.OptionSpec o : commands.get(i).getCommandSpec().options()) {
                if (!o.hidden()) {
                    options.add(o.longestName());
                }
            }
        }
        assertThat(options).hasSizeGreaterThan(20).contains("--duration", "--width", "--json", "--iterations");
        // The name as a word: "--seconds" in "[--seconds S]", never inside "--seconds-x".
        assertThat(options.stream().filter(o -> !java.util.regex.Pattern.compile("(?<![\\w-])"
                + java.util.regex.Pattern.quote(o) + "(?![\\w-])").matcher(docs).find()).toList())
                .as("options no doc names").isEmpty();
    }
}
