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
        assertThat(Json.write(m)).isEqualTo("""
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
}
