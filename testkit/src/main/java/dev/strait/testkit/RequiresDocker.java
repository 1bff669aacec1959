package dev.strait.testkit;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A test class that needs the local Docker engine and images: it runs when they are there; otherwise, before anything
 * starts, it fails in CI and its tests are reported as skipped elsewhere, with the reason ({@link Docker}).
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@ExtendWith(DockerCondition.class)
public @interface RequiresDocker {
    /** Needs {@link Docker#straitImage()}. */
    boolean strait() default false;

    /** Needs {@link Docker#kafkaImage()}. */
    boolean kafka() default false;

    /** Needs {@link Docker#prometheusImage()}. */
    boolean prometheus() default false;
}
