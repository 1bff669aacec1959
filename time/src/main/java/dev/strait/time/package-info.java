/**
 * Time: the {@link dev.strait.time.Time} every module tells time by ({@code Time.SYSTEM} in production),
 * {@link dev.strait.time.ManualTime}, the one test clock, and {@link dev.strait.time.Await}, the one helper every
 * module's tests (and the test kit) wait for a condition with. Imports nothing but the JDK, so every module may import
 * it; no threads of its own.
 */
package dev.strait.time;
