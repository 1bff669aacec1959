package dev.strait.docker;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PanelScreenshotTest {
    @Test
    void grafanasVariablesBecomeWhatPrometheusRuns() {
        assertThat(PanelScreenshot.runnable("sum by (instance) (rate(strait_mirror_records_produced_total{job=\"strait-"
                        + "mirror\", route=~\"$route\", instance=~\"$instance\"}[$__rate_interval])) + "
                        + "increase(x[$__range])"))
                .isEqualTo("sum by (instance) (rate(strait_mirror_records_produced_total{job=\"strait-mirror\", "
                        + "route=~\".*\", instance=~\".*\"}[1m])) + increase(x[" + PanelScreenshot.RANGE + "])");
    }

    @Test
    void aDrawnGraphHasNoProblemAndABlankOrFailedPageHas() {
        String drawn = "<div class=\"error alert alert-danger\" style=\"display: none;\"></div>"
                + "<div class=\"graph rickshaw_graph\"><svg><g><path class=\"path\" d=\"M1,400L2,300\"></path></g>"
                + "</svg></div><div class=\"legend rickshaw_legend\"><ul><li class=\"line\">x</li></ul></div>";
        assertThat(PanelScreenshot.problems(drawn)).isEmpty();

        assertThat(PanelScreenshot.problems("<html><body></body></html>"))
                .containsExactly("no line drawn (no <path class=\"path\" d=\"M...\">)", "no series in the legend");
        String failed = "<div class=\"error alert alert-danger\" style=\"\">Error executing query: parse error</div>";
        assertThat(PanelScreenshot.problems(failed))
                .contains("the page shows an error: Error executing query: parse error");
    }
}
