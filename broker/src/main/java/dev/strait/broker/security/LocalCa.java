package dev.strait.broker.security;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import javax.security.auth.x500.X500Principal;

/**
 * A short-lived certificate authority in one directory, for a demo or a test on this machine: a CA (EC P-256),
 * a PKCS#12 trust store holding it ({@code truststore.p12}, and {@code ca.pem}), and PKCS#12 key stores for named
 * identities it signs ({@code <name>.p12}: subject {@code CN=<name>,O=<organization>}, SAN localhost and
 * 127.0.0.1, server and client authentication). The certificates are made in this JVM with the JDK's public
 * APIs (key generation, signing, {@link KeyStore}; the X.509 structure is encoded here), valid for a few days from
 * the given time, so nothing that expires is ever committed and no child process is started.
 */
public final class LocalCa {
    private static final String SIGNATURE = "SHA256withECDSA";
    /** ecdsa-with-SHA256. */
    private static final String SIGNATURE_OID = "1.2.840.10045.4.3.2";

    private static final DateTimeFormatter UTC_TIME =
            DateTimeFormatter.ofPattern("yyMMddHHmmss'Z'").withZone(ZoneOffset.UTC);

    private final Path dir;
    private final String password;
    private final String organization;
    private final Instant notBefore;
    private final Instant notAfter;
    private final KeyPair caKeys;
    private final X509Certificate caCert;
    private final Map<String, Path> keyStores = new HashMap<>();
    private long serial = 1;

    private LocalCa(Path dir, String password, String organization, Instant now, int validityDays)
            throws GeneralSecurityException {
        this.dir = dir;
        this.password = password;
        this.organization = organization;
        // An hour back: a peer whose clock is a little behind still accepts the certificates.
        this.notBefore = now.minus(Duration.ofHours(1));
        this.notAfter = now.plus(Duration.ofDays(validityDays));
        this.caKeys = newKeyPair();
        X500Principal caName = new X500Principal("CN=" + organization + " CA,O=" + organization);
        this.caCert = sign(caName, caKeys.getPublic(), caExtensions());
    }

    /**
     * Makes the CA in {@code dir} (created if absent), its certificates valid from an hour before {@code now} for
     * {@code validityDays}. {@code password} protects every store it writes (and each key in them).
     */
    public static LocalCa create(Path dir, String password, String organization, Instant now, int validityDays) {
        if (password.length() < 6) {
            throw new IllegalArgumentException("a store password has at least 6 characters");
        }
        if (validityDays < 1) {
            throw new IllegalArgumentException("validityDays must be at least 1, not " + validityDays);
        }
        try {
            Files.createDirectories(dir);
            LocalCa ca = new LocalCa(dir, password, organization, now, validityDays);
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            trust.setCertificateEntry("ca", ca.caCert);
            ca.store(trust, ca.trustStore());
            Files.writeString(
                    dir.resolve("ca.pem"),
                    "-----BEGIN CERTIFICATE-----\n"
                            + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(ca.caCert.getEncoded())
                            + "\n-----END CERTIFICATE-----\n",
                    StandardCharsets.US_ASCII);
            return ca;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the CA's stores in " + dir, e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot make a CA with this JDK: " + e, e);
        }
    }

    public Path dir() {
        return dir;
    }

    /** The password of every store this CA wrote. */
    public String password() {
        return password;
    }

    /** The PKCS#12 trust store holding the CA certificate. */
    public Path trustStore() {
        return dir.resolve("truststore.p12");
    }

    /** A PKCS#12 key store for {@code name} (its key and certificate chain to the CA), made once. */
    public synchronized Path keyStore(String name) {
        return keyStores.computeIfAbsent(name, this::makeIdentity);
    }

    /** The subject of {@code name}'s certificate; Kafka's default principal mapping names it in full. */
    public String subject(String name) {
        return "CN=" + name + ",O=" + organization;
    }

    /** Kafka's {@code ssl.*} settings of a server (or a client with a key) holding {@code name}'s key. */
    public Map<String, String> sslConfigs(String prefix, String name) {
        Map<String, String> configs = new HashMap<>(trustConfigs(prefix));
        configs.put(prefix + "ssl.keystore.location", keyStore(name).toString());
        configs.put(prefix + "ssl.keystore.password", password);
        configs.put(prefix + "ssl.keystore.type", "PKCS12");
        configs.put(prefix + "ssl.key.password", password);
        return configs;
    }

    /** Kafka's {@code ssl.truststore.*} settings trusting the CA. */
    public Map<String, String> trustConfigs(String prefix) {
        Map<String, String> configs = new HashMap<>();
        configs.put(prefix + "ssl.truststore.location", trustStore().toString());
        configs.put(prefix + "ssl.truststore.password", password);
        configs.put(prefix + "ssl.truststore.type", "PKCS12");
        return configs;
    }

    private Path makeIdentity(String name) {
        if (!name.matches("[A-Za-z0-9][A-Za-z0-9._-]*")) {
            throw new IllegalArgumentException("an identity's name is letters, digits, '.', '_' and '-': " + name);
        }
        Path file = dir.resolve(name + ".p12");
        try {
            KeyPair keys = newKeyPair();
            X509Certificate cert = sign(new X500Principal(subject(name)), keys.getPublic(), leafExtensions());
            KeyStore store = KeyStore.getInstance("PKCS12");
            store.load(null, null);
            store.setKeyEntry(name, keys.getPrivate(), password.toCharArray(), new Certificate[] {cert, caCert});
            store(store, file);
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("cannot make a certificate for " + name + ": " + e, e);
        }
    }

    private void store(KeyStore store, Path file) throws IOException, GeneralSecurityException {
        try (OutputStream out = Files.newOutputStream(file)) {
            store.store(out, password.toCharArray());
        }
    }

    private static KeyPair newKeyPair() throws GeneralSecurityException {
        KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
        generator.initialize(new ECGenParameterSpec("secp256r1"));
        return generator.generateKeyPair();
    }

    /** An X.509 v3 certificate (RFC 5280) for {@code subject}'s key, issued and signed by this CA. */
    private X509Certificate sign(X500Principal subject, PublicKey key, byte[] extensions)
            throws GeneralSecurityException {
        X500Principal issuer = caCert == null ? subject : caCert.getSubjectX500Principal();
        PrivateKey signer = caKeys.getPrivate();
        byte[] algorithm = Der.sequence(Der.oid(SIGNATURE_OID));
        byte[] tbs = Der.sequence(
                Der.tagged(0xa0, Der.integer(BigInteger.TWO)),
                Der.integer(BigInteger.valueOf(serial++)),
                algorithm,
                issuer.getEncoded(),
                Der.sequence(Der.utcTime(UTC_TIME.format(notBefore)), Der.utcTime(UTC_TIME.format(notAfter))),
                subject.getEncoded(),
                key.getEncoded(),
                Der.tagged(0xa3, extensions));
        Signature signature = Signature.getInstance(SIGNATURE);
        signature.initSign(signer);
        signature.update(tbs);
        byte[] der = Der.sequence(tbs, algorithm, Der.bitString(signature.sign(), 0));
        return (X509Certificate)
                CertificateFactory.getInstance("X.509").generateCertificate(new java.io.ByteArrayInputStream(der));
    }

    private static byte[] caExtensions() {
        return Der.sequence(
                extension("2.5.29.19", true, Der.sequence(Der.bool(true))),
                // keyCertSign and cRLSign (bits 5 and 6)
                extension("2.5.29.15", true, Der.bitString(new byte[] {0x06}, 1)));
    }

    private static byte[] leafExtensions() {
        return Der.sequence(
                extension("2.5.29.19", true, Der.sequence()),
                // digitalSignature (bit 0): what TLS 1.3 and ECDHE need of an EC key
                extension("2.5.29.15", true, Der.bitString(new byte[] {(byte) 0x80}, 7)),
                // serverAuth, clientAuth
                extension("2.5.29.37", false, Der.sequence(Der.oid("1.3.6.1.5.5.7.3.1"), Der.oid("1.3.6.1.5.5.7.3.2"))),
                // dNSName localhost, iPAddress 127.0.0.1
                extension(
                        "2.5.29.17",
                        false,
                        Der.sequence(
                                Der.tagged(0x82, "localhost".getBytes(StandardCharsets.US_ASCII)),
                                Der.tagged(0x87, new byte[] {127, 0, 0, 1}))));
    }

    private static byte[] extension(String oid, boolean critical, byte[] value) {
        return critical
                ? Der.sequence(Der.oid(oid), Der.bool(true), Der.octetString(value))
                : Der.sequence(Der.oid(oid), Der.octetString(value));
    }

    /** The few DER encodings (ITU-T X.690) a certificate needs. */
    private static final class Der {
        private Der() {}

        static byte[] sequence(byte[]... parts) {
            return tagged(0x30, concat(parts));
        }

        static byte[] integer(BigInteger value) {
            return tagged(0x02, value.toByteArray());
        }

        static byte[] bool(boolean value) {
            return tagged(0x01, new byte[] {(byte) (value ? 0xff : 0)});
        }

        static byte[] octetString(byte[] value) {
            return tagged(0x04, value);
        }

        static byte[] bitString(byte[] value, int unusedBits) {
            byte[] content = new byte[value.length + 1];
            content[0] = (byte) unusedBits;
            System.arraycopy(value, 0, content, 1, value.length);
            return tagged(0x03, content);
        }

        static byte[] utcTime(String value) {
            return tagged(0x17, value.getBytes(StandardCharsets.US_ASCII));
        }

        static byte[] oid(String dotted) {
            String[] arcs = dotted.split("\\.");
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            base128(out, Long.parseLong(arcs[0]) * 40 + Long.parseLong(arcs[1]));
            for (int i = 2; i < arcs.length; i++) {
                base128(out, Long.parseLong(arcs[i]));
            }
            return tagged(0x06, out.toByteArray());
        }

        private static void base128(ByteArrayOutputStream out, long value) {
            int groups = 1;
            while (value >>> (7 * groups) != 0) {
                groups++;
            }
            for (int g = groups - 1; g >= 0; g--) {
                int b = (int) ((value >>> (7 * g)) & 0x7f);
                out.write(g == 0 ? b : b | 0x80);
            }
        }

        static byte[] tagged(int tag, byte[] content) {
            ByteArrayOutputStream out = new ByteArrayOutputStream(content.length + 6);
            out.write(tag);
            int length = content.length;
            if (length < 0x80) {
                out.write(length);
            } else {
                int bytes = length < 0x100 ? 1 : length < 0x10000 ? 2 : 3;
                out.write(0x80 | bytes);
                for (int i = bytes - 1; i >= 0; i--) {
                    out.write(length >>> (8 * i));
                }
            }
            out.writeBytes(content);
            return out.toByteArray();
        }

        private static byte[] concat(byte[]... parts) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            for (byte[] part : parts) {
                out.writeBytes(part);
            }
            return out.toByteArray();
        }
    }
}
