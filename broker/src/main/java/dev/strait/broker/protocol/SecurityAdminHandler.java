package dev.strait.broker.protocol;

import dev.strait.broker.metadata.AclEntry;
import dev.strait.broker.metadata.MetadataSource;
import dev.strait.broker.metadata.ScramCredentialEntry;
import dev.strait.broker.security.Principals;
import java.security.InvalidKeyException;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.message.AlterUserScramCredentialsRequestData.ScramCredentialDeletion;
import org.apache.kafka.common.message.AlterUserScramCredentialsRequestData.ScramCredentialUpsertion;
import org.apache.kafka.common.message.AlterUserScramCredentialsResponseData;
import org.apache.kafka.common.message.AlterUserScramCredentialsResponseData.AlterUserScramCredentialsResult;
import org.apache.kafka.common.message.CreateAclsRequestData.AclCreation;
import org.apache.kafka.common.message.CreateAclsResponseData;
import org.apache.kafka.common.message.CreateAclsResponseData.AclCreationResult;
import org.apache.kafka.common.message.DeleteAclsResponseData;
import org.apache.kafka.common.message.DeleteAclsResponseData.DeleteAclsFilterResult;
import org.apache.kafka.common.message.DeleteAclsResponseData.DeleteAclsMatchingAcl;
import org.apache.kafka.common.message.DescribeAclsResponseData;
import org.apache.kafka.common.message.DescribeUserScramCredentialsRequestData.UserName;
import org.apache.kafka.common.message.DescribeUserScramCredentialsResponseData;
import org.apache.kafka.common.message.DescribeUserScramCredentialsResponseData.CredentialInfo;
import org.apache.kafka.common.message.DescribeUserScramCredentialsResponseData.DescribeUserScramCredentialsResult;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.AlterUserScramCredentialsRequest;
import org.apache.kafka.common.requests.AlterUserScramCredentialsResponse;
import org.apache.kafka.common.requests.ApiError;
import org.apache.kafka.common.requests.CreateAclsRequest;
import org.apache.kafka.common.requests.CreateAclsResponse;
import org.apache.kafka.common.requests.DeleteAclsRequest;
import org.apache.kafka.common.requests.DeleteAclsResponse;
import org.apache.kafka.common.requests.DescribeAclsRequest;
import org.apache.kafka.common.requests.DescribeAclsResponse;
import org.apache.kafka.common.requests.DescribeUserScramCredentialsRequest;
import org.apache.kafka.common.requests.DescribeUserScramCredentialsResponse;
import org.apache.kafka.common.requests.RequestContext;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.jspecify.annotations.Nullable;

/**
 * The ACL APIs (CreateAcls, DescribeAcls, DeleteAcls: what {@code kafka-acls} sends) and the SCRAM credential APIs
 * (DescribeUserScramCredentials, AlterUserScramCredentials: {@code kafka-configs --entity-type users}), over the
 * ACLs and credentials in the cluster metadata, with Kafka's checks and errors: ALTER on the cluster to change
 * them, DESCRIBE to read them (else CLUSTER_AUTHORIZATION_FAILED); without an authorizer the ACL APIs answer
 * SECURITY_DISABLED. A credential is stored as salt, stored key, server key and iterations (RFC 5802), computed
 * here from the salted password the client sends.
 */
final class SecurityAdminHandler {

    private final MetadataSource metadata;
    private final RequestAuthorizer authorizer;

    SecurityAdminHandler(MetadataSource metadata, RequestAuthorizer authorizer) {
        this.metadata = metadata;
        this.authorizer = authorizer;
    }

    // ---------------------------------------------------------------- ACLs

    static AclBinding binding(AclEntry entry) {
        return new AclBinding(
                new ResourcePattern(
                        ResourceType.fromCode(entry.resourceType()),
                        entry.resourceName(),
                        PatternType.fromCode(entry.patternType())),
                new AccessControlEntry(
                        entry.principal(),
                        entry.host(),
                        AclOperation.fromCode(entry.operation()),
                        AclPermissionType.fromCode(entry.permissionType())));
    }

    static AclEntry entry(AclBinding binding) {
        return new AclEntry(
                binding.pattern().resourceType().code(),
                binding.pattern().name(),
                binding.pattern().patternType().code(),
                binding.entry().principal(),
                binding.entry().host(),
                binding.entry().operation().code(),
                binding.entry().permissionType().code());
    }

    /** The current ACLs as Kafka's bindings. */
    static List<AclBinding> bindings(Collection<AclEntry> entries) {
        List<AclBinding> result = new ArrayList<>(entries.size());
        for (AclEntry entry : entries) {
            result.add(binding(entry));
        }
        return result;
    }

    AbstractResponse handleCreateAclsRequest(RequestContext context, CreateAclsRequest request) {
        CreateAclsResponseData data = new CreateAclsResponseData();
        Errors refused = refusedAclAccess(context, AclOperation.ALTER);
        List<AclEntry> valid = new ArrayList<>();
        List<AclCreationResult> results = new ArrayList<>();
        for (AclCreation creation : request.aclCreations()) {
            AclCreationResult result = new AclCreationResult();
            results.add(result);
            if (refused != null) {
                result.setErrorCode(refused.code()).setErrorMessage(refusalMessage(refused));
                continue;
            }
            String invalid = validate(creation);
            if (invalid != null) {
                result.setErrorCode(Errors.INVALID_REQUEST.code()).setErrorMessage(invalid);
                continue;
            }
            valid.add(entry(CreateAclsRequest.aclBinding(creation)));
            result.setErrorCode(Errors.NONE.code());
        }
        if (!valid.isEmpty()) {
            try {
                metadata.alterAcls(valid, List.of());
            } catch (RuntimeException e) {
                Errors error = ApiErrors.forException(e);
                for (AclCreationResult result : results) {
                    if (result.errorCode() == Errors.NONE.code()) {
                        result.setErrorCode(error.code()).setErrorMessage(e.getMessage());
                    }
                }
            }
        }
        return new CreateAclsResponse(data.setResults(results));
    }

    /** Kafka's checks of a new ACL; null when valid. */
    private static @Nullable String validate(AclCreation creation) {
        ResourceType type = ResourceType.fromCode(creation.resourceType());
        if (type == ResourceType.ANY || type == ResourceType.UNKNOWN) {
            return "Invalid resourceType " + creation.resourceType();
        }
        PatternType pattern = PatternType.fromCode(creation.resourcePatternType());
        if (pattern != PatternType.LITERAL && pattern != PatternType.PREFIXED) {
            return "Invalid patternType " + creation.resourcePatternType();
        }
        AclOperation operation = AclOperation.fromCode(creation.operation());
        if (operation == AclOperation.ANY || operation == AclOperation.UNKNOWN) {
            return "Invalid operation " + creation.operation();
        }
        AclPermissionType permission = AclPermissionType.fromCode(creation.permissionType());
        if (permission != AclPermissionType.ALLOW && permission != AclPermissionType.DENY) {
            return "Invalid permissionType " + creation.permissionType();
        }
        if (creation.resourceName() == null || creation.resourceName().isEmpty()) {
            return "Resource name should not be empty";
        }
        if (type == ResourceType.CLUSTER && !creation.resourceName().equals(RequestAuthorizer.CLUSTER_NAME)) {
            return "The only valid name for the CLUSTER resource is " + RequestAuthorizer.CLUSTER_NAME;
        }
        if (creation.host() == null || creation.host().isEmpty()) {
            return "Invalid host";
        }
        try {
            Principals.parse(creation.principal());
        } catch (IllegalArgumentException e) {
            return "Could not parse principal from `" + creation.principal() + "` (no colon is present separating "
                    + "the principal type from the principal name)";
        }
        return null;
    }

    AbstractResponse handleDescribeAclsRequest(RequestContext context, DescribeAclsRequest request) {
        DescribeAclsResponseData data = new DescribeAclsResponseData();
        Errors refused = refusedAclAccess(context, AclOperation.DESCRIBE);
        if (refused != null) {
            return new DescribeAclsResponse(
                    data.setErrorCode(refused.code()).setErrorMessage(refusalMessage(refused)), request.version());
        }
        AclBindingFilter filter = request.filter();
        List<AclBinding> matching = new ArrayList<>();
        for (AclBinding binding : bindings(metadata.acls())) {
            if (filter.matches(binding)) {
                matching.add(binding);
            }
        }
        return new DescribeAclsResponse(
                data.setErrorCode(Errors.NONE.code()).setResources(DescribeAclsResponse.aclsResources(matching)),
                request.version());
    }

    AbstractResponse handleDeleteAclsRequest(RequestContext context, DeleteAclsRequest request) {
        DeleteAclsResponseData data = new DeleteAclsResponseData();
        Errors refused = refusedAclAccess(context, AclOperation.ALTER);
        List<AclBinding> existing = bindings(metadata.acls());
        Set<AclEntry> removed = new HashSet<>();
        List<DeleteAclsFilterResult> results = new ArrayList<>();
        for (AclBindingFilter filter : request.filters()) {
            DeleteAclsFilterResult result = new DeleteAclsFilterResult();
            results.add(result);
            if (refused != null) {
                result.setErrorCode(refused.code()).setErrorMessage(refusalMessage(refused));
                continue;
            }
            result.setErrorCode(Errors.NONE.code());
            for (AclBinding binding : existing) {
                if (filter.matches(binding)) {
                    removed.add(entry(binding));
                    result.matchingAcls().add(DeleteAclsResponse.matchingAcl(binding, ApiError.NONE));
                }
            }
        }
        if (!removed.isEmpty()) {
            try {
                metadata.alterAcls(List.of(), new ArrayList<>(removed));
            } catch (RuntimeException e) {
                Errors error = ApiErrors.forException(e);
                for (DeleteAclsFilterResult result : results) {
                    if (result.errorCode() == Errors.NONE.code()
                            && !result.matchingAcls().isEmpty()) {
                        result.setErrorCode(error.code()).setErrorMessage(e.getMessage());
                        for (DeleteAclsMatchingAcl acl : result.matchingAcls()) {
                            acl.setErrorCode(error.code());
                        }
                    }
                }
            }
        }
        return new DeleteAclsResponse(data.setFilterResults(results), request.version());
    }

    private @Nullable Errors refusedAclAccess(RequestContext context, AclOperation operation) {
        if (!authorizer.enabled()) {
            return Errors.SECURITY_DISABLED;
        }
        return authorizer.cluster(context, operation) ? null : Errors.CLUSTER_AUTHORIZATION_FAILED;
    }

    private static String refusalMessage(Errors error) {
        return error == Errors.SECURITY_DISABLED ? "No Authorizer is configured." : "Cluster authorization failed.";
    }

    // ---------------------------------------------------------------- SCRAM credentials

    AbstractResponse handleDescribeUserScramCredentialsRequest(
            RequestContext context, DescribeUserScramCredentialsRequest request) {
        DescribeUserScramCredentialsResponseData data = new DescribeUserScramCredentialsResponseData();
        if (!authorizer.cluster(context, AclOperation.DESCRIBE)) {
            return new DescribeUserScramCredentialsResponse(
                    data.setErrorCode(Errors.CLUSTER_AUTHORIZATION_FAILED.code())
                            .setErrorMessage("Cluster authorization failed."));
        }
        Map<String, List<CredentialInfo>> byUser = new LinkedHashMap<>();
        for (ScramCredentialEntry credential : metadata.scramCredentials()) {
            byUser.computeIfAbsent(credential.user(), u -> new ArrayList<>())
                    .add(new CredentialInfo()
                            .setMechanism(credential.mechanism())
                            .setIterations(credential.iterations()));
        }
        data.setErrorCode(Errors.NONE.code());
        List<UserName> users = request.data().users();
        if (users == null || users.isEmpty()) {
            byUser.forEach((user, infos) -> data.results()
                    .add(new DescribeUserScramCredentialsResult()
                            .setUser(user)
                            .setErrorCode(Errors.NONE.code())
                            .setCredentialInfos(infos)));
            return new DescribeUserScramCredentialsResponse(data);
        }
        Map<String, Integer> counts = new HashMap<>();
        for (UserName user : users) {
            counts.merge(user.name(), 1, Integer::sum);
        }
        Set<String> answered = new HashSet<>();
        for (UserName user : users) {
            if (!answered.add(user.name())) {
                continue;
            }
            DescribeUserScramCredentialsResult result = new DescribeUserScramCredentialsResult().setUser(user.name());
            if (counts.getOrDefault(user.name(), 0) > 1) {
                result.setErrorCode(Errors.DUPLICATE_RESOURCE.code())
                        .setErrorMessage("Cannot describe SCRAM credentials for the same user twice in a single "
                                + "request: " + user.name());
            } else if (!byUser.containsKey(user.name())) {
                result.setErrorCode(Errors.RESOURCE_NOT_FOUND.code())
                        .setErrorMessage("Attempt to describe a user credential that does not exist: " + user.name());
            } else {
                result.setErrorCode(Errors.NONE.code()).setCredentialInfos(byUser.get(user.name()));
            }
            data.results().add(result);
        }
        return new DescribeUserScramCredentialsResponse(data);
    }

    AbstractResponse handleAlterUserScramCredentialsRequest(
            RequestContext context, AlterUserScramCredentialsRequest request) {
        AlterUserScramCredentialsResponseData data = new AlterUserScramCredentialsResponseData();
        List<ScramCredentialDeletion> deletions = request.data().deletions();
        List<ScramCredentialUpsertion> upsertions = request.data().upsertions();
        Map<String, Integer> counts = new HashMap<>();
        for (ScramCredentialDeletion deletion : deletions) {
            counts.merge(deletion.name(), 1, Integer::sum);
        }
        for (ScramCredentialUpsertion upsertion : upsertions) {
            counts.merge(upsertion.name(), 1, Integer::sum);
        }
        boolean allowed = authorizer.cluster(context, AclOperation.ALTER);
        Map<String, AlterUserScramCredentialsResult> results = new LinkedHashMap<>();
        List<ScramCredentialEntry> upserts = new ArrayList<>();
        List<ScramCredentialEntry.Id> removals = new ArrayList<>();
        Set<ScramCredentialEntry.Id> existing = new HashSet<>();
        for (ScramCredentialEntry credential : metadata.scramCredentials()) {
            existing.add(credential.id());
        }
        for (ScramCredentialDeletion deletion : deletions) {
            ScramCredentialEntry.Id id = new ScramCredentialEntry.Id(deletion.name(), deletion.mechanism());
            Refusal refusal = !allowed ? Refusal.UNAUTHORIZED : check(deletion.name(), deletion.mechanism(), counts);
            if (refusal == null && !existing.contains(id)) {
                refusal = new Refusal(
                        Errors.RESOURCE_NOT_FOUND, "Attempt to delete a user credential that does not exist");
            }
            results.putIfAbsent(deletion.name(), result(deletion.name(), refusal));
            if (refusal == null) {
                removals.add(id);
            }
        }
        for (ScramCredentialUpsertion upsertion : upsertions) {
            Refusal refusal = !allowed ? Refusal.UNAUTHORIZED : check(upsertion.name(), upsertion.mechanism(), counts);
            if (refusal == null) {
                ScramMechanism mechanism = Objects.requireNonNull(
                        scramMechanism(upsertion.mechanism()), "check() refuses an unknown mechanism");
                if (upsertion.iterations() < mechanism.minIterations()) {
                    refusal = new Refusal(Errors.UNACCEPTABLE_CREDENTIAL, "Too few iterations");
                } else if (upsertion.iterations() > mechanism.maxIterations()) {
                    refusal = new Refusal(Errors.UNACCEPTABLE_CREDENTIAL, "Too many iterations");
                } else {
                    upserts.add(credential(upsertion, mechanism));
                }
            }
            results.putIfAbsent(upsertion.name(), result(upsertion.name(), refusal));
        }
        if (!upserts.isEmpty() || !removals.isEmpty()) {
            try {
                metadata.alterScramCredentials(upserts, removals);
            } catch (RuntimeException e) {
                Errors error = ApiErrors.forException(e);
                for (AlterUserScramCredentialsResult result : results.values()) {
                    if (result.errorCode() == Errors.NONE.code()) {
                        result.setErrorCode(error.code()).setErrorMessage(e.getMessage());
                    }
                }
            }
        }
        data.setResults(new ArrayList<>(results.values()));
        return new AlterUserScramCredentialsResponse(data);
    }

    /** The mechanism of Kafka's code (1 SCRAM-SHA-256, 2 SCRAM-SHA-512), or null. */
    private static @Nullable ScramMechanism scramMechanism(byte type) {
        for (ScramMechanism mechanism : ScramMechanism.values()) {
            if (mechanism.type() == type) {
                return mechanism;
            }
        }
        return null;
    }

    /** Why a credential change is refused. */
    private record Refusal(Errors error, String message) {
        static final Refusal UNAUTHORIZED =
                new Refusal(Errors.CLUSTER_AUTHORIZATION_FAILED, "Cluster authorization failed.");
    }

    /** Kafka's checks shared by deletions and upsertions; null when fine. */
    private static @Nullable Refusal check(String user, byte mechanism, Map<String, Integer> counts) {
        if (user == null || user.isEmpty()) {
            return new Refusal(Errors.UNACCEPTABLE_CREDENTIAL, "Username must not be empty");
        }
        if (counts.getOrDefault(user, 0) > 1) {
            return new Refusal(
                    Errors.DUPLICATE_RESOURCE, "Cannot alter the same user more than once in a single request");
        }
        ScramMechanism scram = scramMechanism(mechanism);
        if (scram == null) {
            return new Refusal(Errors.UNSUPPORTED_SASL_MECHANISM, "Unknown SCRAM mechanism");
        }
        return null;
    }

    private static AlterUserScramCredentialsResult result(String user, @Nullable Refusal refusal) {
        return new AlterUserScramCredentialsResult()
                .setUser(user)
                .setErrorCode(
                        refusal == null ? Errors.NONE.code() : refusal.error().code())
                .setErrorMessage(refusal == null ? null : refusal.message());
    }

    private static ScramCredentialEntry credential(ScramCredentialUpsertion upsertion, ScramMechanism mechanism) {
        try {
            ScramFormatter formatter = new ScramFormatter(mechanism);
            byte[] storedKey = formatter.storedKey(formatter.clientKey(upsertion.saltedPassword()));
            byte[] serverKey = formatter.serverKey(upsertion.saltedPassword());
            return new ScramCredentialEntry(
                    upsertion.name(), mechanism.type(), upsertion.salt(), storedKey, serverKey, upsertion.iterations());
        } catch (NoSuchAlgorithmException | InvalidKeyException e) {
            throw new IllegalStateException("the JDK cannot compute " + mechanism.mechanismName(), e);
        }
    }

    /** The store the SCRAM SASL servers look credentials up in. */
    static Optional<org.apache.kafka.common.security.scram.ScramCredential> lookup(
            Collection<ScramCredentialEntry> credentials, String user, String mechanismName) {
        ScramMechanism mechanism = ScramMechanism.forMechanismName(mechanismName);
        if (mechanism == null) {
            return Optional.empty();
        }
        for (ScramCredentialEntry credential : credentials) {
            if (credential.user().equals(user) && credential.mechanism() == mechanism.type()) {
                return Optional.of(new org.apache.kafka.common.security.scram.ScramCredential(
                        credential.salt(), credential.storedKey(), credential.serverKey(), credential.iterations()));
            }
        }
        return Optional.empty();
    }
}
