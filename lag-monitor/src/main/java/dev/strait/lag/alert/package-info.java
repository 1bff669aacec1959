/**
 * Telling someone: {@link dev.strait.lag.alert.Alerter} logs every change of the group's status and, when a webhook
 * is configured, POSTs the {@code /status} document wrapped with the previous status, suppressing repeats so a
 * flapping partition pages once. The POST goes through {@code mirror.webhook}'s {@code WebhookPoster} (the one the
 * canary uses too), synchronously on the monitor's loop thread, which owns the alerter, and for at most its 10 s
 * timeout; a failed POST is logged and the loop goes on. Imports {@code lag.status}, {@code lag.http}'s
 * {@code StatusFormat} (the webhook carries the same document as {@code /status}), {@code mirror.http}'s
 * {@code Json} and {@code mirror.webhook}; only {@link dev.strait.lag.LagMonitor} imports it.
 */
package dev.strait.lag.alert;
