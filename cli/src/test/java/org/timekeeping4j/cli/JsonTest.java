package org.timekeeping4j.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class JsonTest {

    @Test
    void shouldEscapeAndNest() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("s", "a\"b\\c\nd\u0001");
        m.put("n", 42L);
        m.put("d", Double.NaN);
        m.put("list", List.of(1, true));
        m.put("empty", Map.of());
        m.put("nil", null);
        assertThat(Json.write(m, Terminal.DEFAULT)).isEqualTo("""
                {
                  "s": "a\\"b\\\\c\\nd\\u0001",
                  "n": 42,
                  "d": null,
                  "list": [
                    1,
                    true
                  ],
                  "empty": {},
                  "nil": null
                }""");
    }

    /** Prose is an array of lines that fit the width, whatever its length; joined with blanks, the sentence. */
    @Test
    void proseIsAnArrayOfLinesThatFit() {
        String sentence = "CLOCK_AUX+0 does not exist in this kernel: AUX clocks need Linux 6.17+ with "
                + "CONFIG_POSIX_AUX_CLOCKS (clock_gettime answers EINVAL (Invalid argument))";
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("clocks", List.of(Map.of("reason", new org.timekeeping4j.cli.text.Prose(sentence))));
        m.put("short", new org.timekeeping4j.cli.text.Prose("one line"));
        String json = Json.write(m, 80);
        assertThat(json.lines()).allMatch(l -> l.length() <= 80);
        com.fasterxml.jackson.databind.JsonNode tree = new Tk4jHarness(0, json, "").json();
        List<String> lines = new java.util.ArrayList<>();
        tree.get("clocks").get(0).get("reason").forEach(n -> lines.add(n.asText()));
        assertThat(lines).hasSizeGreaterThan(1);
        assertThat(String.join(" ", lines)).isEqualTo(sentence);
        assertThat(tree.get("short").isArray()).isTrue();
        assertThat(tree.get("short").get(0).asText()).isEqualTo("one line");
    }
}
