package dev.strait.testkit;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * {@link RequiresDocker}'s condition, decided once per test class: enabled when the engine answers and the images
 * exist; otherwise disabled with the reason (JUnit reports the tests as skipped), or, in CI, an error that fails the
 * class.
 */
public final class DockerCondition implements ExecutionCondition {
    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        if (context.getTestMethod().isPresent()) {
            return ConditionEvaluationResult.enabled("decided for the class");
        }
        RequiresDocker needs = context.getRequiredTestClass().getAnnotation(RequiresDocker.class);
        List<String> images = new ArrayList<>();
        if (needs != null && needs.strait()) {
            images.add(Docker.straitImage());
        }
        if (needs != null && needs.kafka()) {
            images.add(Docker.kafkaImage());
        }
        if (needs != null && needs.prometheus()) {
            images.add(Docker.prometheusImage());
        }
        String missing = Docker.missing(images.toArray(new String[0]));
        if (missing == null) {
            return ConditionEvaluationResult.enabled("Docker and " + images + " are there");
        }
        if (Docker.inCi()) {
            throw new AssertionError(Docker.ciFailure(missing));
        }
        return ConditionEvaluationResult.disabled(Docker.skipReason(missing));
    }
}
