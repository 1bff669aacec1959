/**
 * Alerts leaving Strait over HTTP: {@link dev.strait.mirror.webhook.WebhookPoster} POSTs a JSON document to a
 * configured webhook, bounded by one timeout so the alerting loop is never held longer, and logs a failure in one
 * line. It owns no thread: the JDK's HTTP client does the I/O and the caller (the lag monitor's loop, the canary's
 * scheduler) waits for the answer. The documents themselves are written by the callers with
 * {@code mirror.http}'s {@code Json}. Imports only the JDK and SLF4J; the lag monitor and the canary import it.
 */
package dev.strait.mirror.webhook;
