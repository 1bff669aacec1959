package dev.strait.docker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class DashboardQueriesTest {
    @Test
    void readsPanelsRowsAndVariablesAndNamesOnlyTheirMetrics() throws Exception {
        Map<String, String> queries = DashboardQueries.of("d.json", """
                {"templating": {"list": [
                   {"name": "datasource", "type": "datasource", "query": "prometheus"},
                   {"name": "route", "type": "query", "query": "label_values(up{job=\\"strait-mirror\\"}, route)"},
                   {"name": "group", "type": "query",
                    "query": {"query": "label_values(strait_lag_group_status{route=~\\"$route\\"}, group)"}},
                   {"name": "topic", "type": "query", "query": "label_values(topic)"}]},
                 "panels": [
                   {"id": 1, "type": "timeseries", "title": "Produced", "targets": [
                     {"refId": "A", "expr": "sum by (instance) (rate(strait_mirror_records_produced_total{route=~\\"$route\\"}[$__rate_interval]))"}]},
                   {"id": 2, "type": "row", "title": "Collapsed", "panels": [
                     {"id": 3, "type": "stat", "title": "Age", "targets": [
                       {"refId": "A", "expr": "time() - strait_mirror_sync_offset_map_last_success_ms / 1000"},
                       {"refId": "B", "expr": ""}]}]}]}
                """);
        assertThat(queries)
                .containsOnlyKeys(
                        "d.json variable route",
                        "d.json variable group",
                        "d.json panel 1 \"Produced\" A",
                        "d.json panel 3 \"Age\" A");
        assertThat(DashboardQueries.metrics(queries))
                .isEqualTo(Map.of(
                        "up", Set.of("d.json variable route"),
                        "strait_lag_group_status", Set.of("d.json variable group"),
                        "strait_mirror_records_produced_total", Set.of("d.json panel 1 \"Produced\" A"),
                        "strait_mirror_sync_offset_map_last_success_ms", Set.of("d.json panel 3 \"Age\" A")));
    }

    @Test
    void aVariableQueryItCannotReadFailsInsteadOfBeingIgnored() {
        assertThatThrownBy(() -> DashboardQueries.of("d.json", """
                        {"templating": {"list": [{"name": "x", "type": "query", "query": "metrics(strait_.*)"}]}}
                        """))
                .isInstanceOf(AssertionError.class)
                .hasMessageContaining("variable x");
    }

    @Test
    void theRepositorysDashboardsQueryEveryProcessOfTheStack() throws Exception {
        Set<String> metrics = DashboardQueries.metrics(DashboardQueries.all()).keySet();
        assertThat(metrics)
                .contains(
                        "strait_mirror_records_produced_total",
                        "strait_lag_exact_records",
                        "strait_canary_state",
                        "strait_broker_leader_partitions",
                        "up");
    }
}
