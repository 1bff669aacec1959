/**
 * The companion broker cluster. Empty until issue 3 (a durable single node) and issue 4 (replication and
 * the controller quorum) land; nothing in Strait depends on it yet.
 */
package dev.strait.broker;
