/**
 * Time: the {@link dev.strait.time.Time} every module tells time by ({@code Time.SYSTEM} in production), and
 * {@link dev.strait.time.ManualTime}, the one test clock. Imports nothing but the JDK, so every module may import it;
 * no threads of its own.
 */
package dev.strait.time;
