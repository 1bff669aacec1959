package dev.strait.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class DemoScenarioTest {
    @Test
    void stepsRunAtTheirSecondInTheOrderTheyWereAddedAndFaultsAreNamedUntilCleared() throws Exception {
        List<String> said = new ArrayList<>();
        String[] fault = {null};
        DemoScenario.Context ctx = new DemoScenario.Context() {
            @Override
            public void say(String line) {
                said.add(line);
            }

            @Override
            public void faultStarted(String description) {
                fault[0] = description;
            }

            @Override
            public void faultCleared() {
                fault[0] = null;
            }
        };
        DemoScenario scenario = new DemoScenario()
                .then(5, "kill", c -> {
                    c.say("kill");
                    c.faultStarted("broker 2 killed");
                })
                .then(2, "warm up", c -> c.say("warm"))
                .then(5, "view", c -> c.say("view"))
                .then(9, "settle", DemoScenario.Context::faultCleared);

        for (int t = 1; t <= 10; t++) {
            scenario.runDue(t, ctx);
            if (t == 6) {
                assertThat(fault[0]).isEqualTo("broker 2 killed");
            }
        }

        assertThat(said).containsExactly("warm", "kill", "view");
        assertThat(fault[0]).isNull();
        assertThat(scenario.steps())
                .extracting(DemoScenario.Step::name)
                .containsExactly("warm up", "kill", "view", "settle");
    }
}
