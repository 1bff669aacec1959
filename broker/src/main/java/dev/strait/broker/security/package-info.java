/**
 * Who may do what, decided the way Kafka decides it: {@link dev.strait.broker.security.AclAuthorizer} applies the
 * rules of Kafka's {@code StandardAuthorizer} to one immutable set of ACLs (a new instance replaces it when the ACLs
 * in the metadata change), {@link dev.strait.broker.security.Principals} parses {@code User:name} text, and
 * {@link dev.strait.broker.security.ScramCredentialStore} is where the SASL/SCRAM server finds a user's credential.
 * {@link dev.strait.broker.security.LocalCa} makes short-lived certificates for the demo and tests, on its caller's
 * thread at set-up. The authorizer is immutable and the store thread-safe, so request handler threads use them
 * without locks. It may import only
 * kafka-clients' public security model (acl, resource, principal, SCRAM types), never wire classes or another
 * broker package; the protocol adapter imports it, and the command line's demo uses {@code LocalCa}.
 */
package dev.strait.broker.security;
