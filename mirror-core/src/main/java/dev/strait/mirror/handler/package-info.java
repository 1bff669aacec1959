/**
 * The one extension point users implement: {@link dev.strait.mirror.handler.MessageHandler} turns a source record
 * into zero or more records to send, and {@link dev.strait.mirror.handler.MessageHandlers} loads the class a setting
 * names. It is its own package so that the lag monitor's audit can run the mirror's handler on each source record
 * without the engine; checkstyle forbids it to import {@code mirror.engine}. One handler instance is shared by
 * every stream thread (and the audit's thread), hence the thread-safety it demands of implementations. Imports
 * only {@code mirror.config}; the engine, config and the lag monitor import it.
 */
package dev.strait.mirror.handler;
