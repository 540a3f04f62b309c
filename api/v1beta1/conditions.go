/*
Copyright 2026 The forge-operator Authors.

Licensed under the Apache License, Version 2.0 (the "License");
you may not use this file except in compliance with the License.
You may obtain a copy of the License at

    http://www.apache.org/licenses/LICENSE-2.0

Unless required by applicable law or agreed to in writing, software
distributed under the License is distributed on an "AS IS" BASIS,
WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
See the License for the specific language governing permissions and
limitations under the License.
*/

package v1beta1

// Condition types. They follow the kstatus conventions, so that kubectl
// wait, Argo CD and Flux read them without custom code: Ready summarises,
// Reconciling is true while work is under way, Stalled is true when the
// operator cannot go on without a change from the user.
const (
	ConditionReady       = "Ready"
	ConditionReconciling = "Reconciling"
	ConditionStalled     = "Stalled"
	// ConditionDeprecatedVersionsStored is True on every Forge while a CRD
	// of the operator still stores a deprecated version (status.storedVersions
	// beyond v1beta1): its message names them and the command that
	// migrates them (docs/api.md). Absent otherwise.
	ConditionDeprecatedVersionsStored = "DeprecatedVersionsStored"
)

// Condition reasons, CamelCase, shared by every kind. They also serve as
// Event reasons.
const (
	// ReasonMigrationPending: objects are still stored at a deprecated
	// version (ConditionDeprecatedVersionsStored).
	ReasonMigrationPending = "MigrationPending"
	// ReasonSynced: the forge object equals the spec.
	ReasonSynced = "Synced"
	// ReasonCreated: the object was created on the forge in this pass.
	ReasonCreated = "Created"
	// ReasonAdopted: an existing forge object with the same natural key was taken over.
	ReasonAdopted = "Adopted"
	// ReasonUpdated: the spec changed and the forge object was updated.
	ReasonUpdated = "Updated"
	// ReasonDriftCorrected: the forge object had been changed outside the operator and was set back.
	ReasonDriftCorrected = "DriftCorrected"
	// ReasonApplied: a set governs repositories it did not cover before (made
	// on the forge, or come to match its selector: not in status.matched) and
	// applied its spec there. DriftCorrected stays for what was changed on the
	// forge in repositories the set governed already.
	ReasonApplied = "Applied"
	// ReasonReplaced: a hook or deploy key was replaced because a field the forge cannot change did.
	ReasonReplaced = "Replaced"
	// ReasonDeleted: the forge object was removed.
	ReasonDeleted = "Deleted"
	// ReasonOrphaned: the resource was deleted and the forge object left in place.
	ReasonOrphaned = "Orphaned"
	// ReasonProgressing: a pass is under way.
	ReasonProgressing = "Progressing"
	// ReasonForgeNotReady: the referenced Forge is missing or not Ready.
	ReasonForgeNotReady = "ForgeNotReady"
	// ReasonParentNotFound: the organization or repository the object lives in does not exist (yet).
	ReasonParentNotFound = "ParentNotFound"
	// ReasonSecretNotFound: a referenced Secret or key is missing.
	ReasonSecretNotFound = "SecretNotFound"
	// ReasonDigestKeyUnavailable: the operator cannot read or create its
	// secret digest key Secret (--secret-digest-key), which hooks with a
	// secret or authorization header need.
	ReasonDigestKeyUnavailable = "DigestKeyUnavailable"
	// ReasonDigestKeyChanged: digests in status were made with another secret
	// digest key (its Secret re-created, or the flag changed); the values were
	// compared by Secret resourceVersion and the digests recorded anew.
	ReasonDigestKeyChanged = "DigestKeyChanged"
	// ReasonUnauthorized: the forge refused the credentials (401) or the action (403).
	ReasonUnauthorized = "Unauthorized"
	// ReasonRejected: the forge refused the request as invalid (422); the message is the forge's.
	ReasonRejected = "Rejected"
	// ReasonConflict: another resource manages the same forge object, or the key is ambiguous.
	ReasonConflict = "Conflict"
	// ReasonUnsupported: the forge lacks the API this kind needs.
	ReasonUnsupported = "Unsupported"
	// ReasonInsufficientScope: the writes the resource needs need a token
	// scope its Forge's token lacks (the Forge's status.tokenScopes).
	ReasonInsufficientScope = "InsufficientScope"
	// ReasonDeleteBlocked: the forge refused the deletion (e.g. an organization that still owns repositories).
	ReasonDeleteBlocked = "DeleteBlocked"
	// ReasonSuspended: spec.suspend is true; no forge calls are made.
	ReasonSuspended = "Suspended"
	// ReasonObserved: managementPolicy is Observe and the forge object equals the spec.
	ReasonObserved = "Observed"
	// ReasonDriftDetected: managementPolicy is Observe and the forge object differs from the spec.
	ReasonDriftDetected = "DriftDetected"
	// ReasonNotFound: managementPolicy is Observe and the forge object does not exist.
	ReasonNotFound = "NotFound"
	// ReasonRunnerNotFound: no runner matches yet; runners register themselves later.
	ReasonRunnerNotFound = "RunnerNotFound"
	// ReasonRateLimited: the forge answered 429; the pass is retried after Retry-After.
	ReasonRateLimited = "RateLimited"
	// ReasonForgeError: a transient forge or network failure; retried with backoff.
	ReasonForgeError = "ForgeError"
	// ReasonConnected: a Forge's credentials were accepted.
	ReasonConnected = "Connected"
	// ReasonInvalidForgeAnswer: the forge answered a create with something
	// that cannot be trusted (an id <= 0, a body that does not parse); the
	// create is not repeated before the sync interval, and the next pass
	// looks for the object first.
	ReasonInvalidForgeAnswer = "InvalidForgeAnswer"
	// ReasonMergeIncomplete: issues kept getting a label that a LabelSet
	// merges away while it relabelled them; the old label is kept and the
	// merge is retried.
	ReasonMergeIncomplete = "MergeIncomplete"
	// ReasonTooManyRemovals: a pass would remove more members than its limit
	// allows, so it removed none (Stalled until the limit or the list changes).
	ReasonTooManyRemovals = "TooManyRemovals"
	// ReasonRepositoryArchived: the object lives in an archived repository,
	// so no write is attempted (Stalled until it is unarchived).
	ReasonRepositoryArchived = "RepositoryArchived"
	// ReasonArchived: a Repository with deletionPolicy Archive was archived
	// when its resource was deleted.
	ReasonArchived = "Archived"
	// ReasonUserNotFound: a Team member does not exist on the forge; the
	// others were applied (retried with backoff). Also the wait of a
	// resource naming a user that a User resource of its server declares
	// and that is not Ready yet: nothing is written until it is.
	ReasonUserNotFound = "UserNotFound"
	// ReasonTeamNotFound: the resource names a team (in an allow-list)
	// that a Team resource of its server declares and that is not Ready
	// yet: nothing is written until it is, and its becoming Ready brings
	// the resource back at once.
	ReasonTeamNotFound = "TeamNotFound"
	// ReasonMoved: the forge answers the name the spec gives with a
	// redirect (the organization, user or repository was renamed or
	// transferred), or the object read by its id (a team, a repository)
	// now belongs to another organization or owner than the spec's:
	// nothing is written to it, and it is not deleted.
	ReasonMoved = "Moved"
	// ReasonProtected: the object is the account the connection's own
	// credentials belong to (its login or id from GET /user): the operator
	// writes nothing to it, nor adopts it.
	ReasonProtected = "Protected"
	// ReasonTokenUnchanged (a Warning Event): a rotation of a
	// RunnerRegistrationToken got back the token its Secret holds already:
	// the forge's API answers its current token and cannot reset it.
	ReasonTokenUnchanged = "TokenUnchanged"
	// ReasonAnnotationDropped (a Warning Event): the resource carried an annotation
	// that only the operator's own records may hold (forge.forgeops.dev/create-pending,
	// forge.forgeops.dev/replaces), which the operator cannot tell it wrote: set by hand,
	// or left by an earlier version in a state no status record vouches for. It was
	// removed and allowed nothing: no hold, no look-up, no delete.
	ReasonAnnotationDropped = "AnnotationDropped"
	// ReasonRemovalsPending (a Warning Event): a resource with removals
	// Report would remove what it does not list; it removed nothing, and
	// status.pendingRemovals lists what it would. Emitted when the planned
	// removals change, not on every pass.
	ReasonRemovalsPending = "RemovalsPending"
	// ReasonReleased (a Normal Event): a repository stopped matching a
	// set (excluded, a topic removed, transferred, archived) and the set
	// released it as if it were deleted there: its deletionPolicy decided.
	ReasonReleased = "Released"
)

// Annotations the operator reads or writes.
const (
	// ReconcileRequestedAtAnnotation asks for an immediate pass when its value changes;
	// the value handled last is echoed in status.lastHandledReconcileAt.
	ReconcileRequestedAtAnnotation = "forge.forgeops.dev/reconcile-requested-at"
	// RotateRequestedAtAnnotation asks a RunnerRegistrationToken for one new token request
	// when its value changes; the value handled last is echoed in status.lastHandledRotateAt.
	RotateRequestedAtAnnotation = "forge.forgeops.dev/rotate-requested-at"
	// CreatePendingAnnotation is where earlier versions kept the create-pending mark, now
	// status.createPending. An annotation is written by anyone who may edit the resource,
	// so it is no record: on its first pass the operator moves a mark it can tell it wrote
	// (status echoes it, or the replaced object is the one status.id records) into status
	// and removes the annotation; any other is removed with a Warning Event
	// (ReasonAnnotationDropped) and changes nothing.
	CreatePendingAnnotation = "forge.forgeops.dev/create-pending"
	// ReplacesAnnotation is where earlier versions kept what a pending create replaces, now
	// status.replaces; handled as CreatePendingAnnotation is.
	ReplacesAnnotation = "forge.forgeops.dev/replaces"
)

// Finalizer is held by every managed resource until its forge object is dealt with.
const Finalizer = "forge.forgeops.dev/finalizer"

// ShardLabel names the shard (docs/shards.md): on a Forge or ClusterForge the
// user sets it (the oldest connection of a server decides the server's
// shard); on a managed resource the operator keeps it equal to its
// server's shard, absent for the default shard, so that each manager's
// cache selects its own.
const ShardLabel = "forge.forgeops.dev/shard"
