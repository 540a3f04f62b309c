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

package v1beta1_test

import (
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// topics is n distinct valid topics.
func topics(n int) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = fmt.Sprintf("topic-%d", i)
	}
	return out
}

// Forge names at and just past the forge's limit of 40 characters.
var (
	name40 = "acme-" + strings.Repeat("x", 35)
	name41 = name40 + "y"
)

var _ = Describe("admission", func() {
	accepted, rejected, _, _, _ := kindRows()
	// Admission is synchronous and the objects are never needed again:
	// a dry-run create runs the full validation without storing anything.
	create := func(ctx SpecContext, u *unstructured.Unstructured) error {
		u.SetNamespace(dryRunNamespace)
		return k8sClient.Create(ctx, u, client.DryRunAll)
	}

	DescribeTable("accepts valid objects, edge cases included", append([]any{
		func(ctx SpecContext, u *unstructured.Unstructured) {
			Expect(create(ctx, u)).To(Succeed())
		},
		Entry("Forge: the base object", obj("Forge")),
		Entry("Forge: basic auth instead of a token", obj("Forge",
			unset("spec.auth.tokenSecretRef"), set("spec.auth.basicAuthSecretRef.name", "gitea-basic"))),
		Entry("Forge: url already ending in /api/v1, with a port", obj("Forge", set("spec.url", "https://git.example.com:8443/api/v1"))),
		Entry("Forge: fractional qps", obj("Forge", set("spec.rateLimit.qps", 0.5))),
		Entry("Forge: composite timeout", obj("Forge", set("spec.timeout", "1m30s"))),
		Entry("Forge: timeout of exactly 5m", obj("Forge", set("spec.timeout", "5m"))),
		Entry("Forge: rate limits at their bounds", obj("Forge",
			set("spec.rateLimit", map[string]any{"qps": 0.1, "burst": int64(1000)}))),
		Entry("Forge: the highest qps", obj("Forge", set("spec.rateLimit.qps", int64(1000)))),
		Entry("Label: a name with inner spaces", obj("Label", set("spec.name", "good first issue"))),
		Entry("Project: a title with inner spaces", obj("Project", set("spec.title", "Road map 2026"))),
		Entry("Organization: the base object", obj("Organization")),
		Entry("Organization: through a ClusterForge", obj("Organization", set("spec.forgeRef.kind", "ClusterForge"))),
		Entry("User: the base object", obj("User")),
		Entry("RunnerRegistrationToken: an organization's", obj("RunnerRegistrationToken")),
		Entry("RunnerRegistrationToken: a repository's", obj("RunnerRegistrationToken", unset("spec.organization"), set("spec.repository", "acme/web"))),
		Entry("RunnerRegistrationToken: the instance's", obj("RunnerRegistrationToken", unset("spec.organization"), set("spec.forgeRef.kind", "ClusterForge"))),
		Entry("User: every field", obj("User", set("spec.fullName", "CI Bot"), set("spec.visibility", "private"),
			set("spec.restricted", true), set("spec.admin", false), set("spec.active", true), set("spec.prohibitLogin", false),
			set("spec.passwordSecretRef", map[string]any{"name": "ci-bot", "key": "password"}), set("spec.mustChangePassword", false),
			set("spec.deletionPolicy", "Delete"))),
		Entry("Organization: a 40-character name", obj("Organization", set("spec.name", name40))),
		Entry("Organization: a 40-character metadata.name standing in for spec.name", obj("Organization", set("metadata.name", name40))),
		Entry("Organization: a long metadata.name with a valid spec.name", obj("Organization",
			set("metadata.name", name41), set("spec.name", "acme"))),
		Entry("Organization: single separators, capitals and digits", obj("Organization", set("spec.name", "Acme_Corp.2-eu"))),
		Entry("Organization: empty website and e-mail clear them", obj("Organization",
			set("spec.website", ""), set("spec.email", ""))),
		Entry("Organization: syncInterval of exactly 1s", obj("Organization", set("spec.syncInterval", "1s"))),
		Entry("OrgHook: the base object", obj("OrgHook")),
		Entry("RepoHook: the base object", obj("RepoHook")),
		Entry("OrgHook: url from a Secret", obj("OrgHook",
			unset("spec.url"), set("spec.urlSecretRef", map[string]any{"name": "ci-hook", "key": "url"}))),
		Entry("OrgHook: slack with a channel", obj("OrgHook",
			set("spec.type", "slack"), set("spec.config", map[string]any{"channel": "#dev", "username": "gitea"}))),
		Entry("OrgHook: every group event once", obj("OrgHook",
			set("spec.events", strs("issues", "issues_only", "pull_request", "pull_request_only", "workflow_run")))),
		Entry("Label: the base object", obj("Label")),
		Entry("Repository: the base object", obj("Repository")),
		Entry("BranchProtection: the base object", obj("BranchProtection")),
		Entry("DeployKey: generated", obj("DeployKey")),
		Entry("PushMirror: with credentials", obj("PushMirror")),
		Entry("PushMirror: git URL, no auth, periodic sync off", obj("PushMirror", unset("spec.auth"),
			set("spec.remoteAddress", "git://mirror.example.com/acme/web.git"), set("spec.interval", "0s"))),
		Entry("DeployKey: a public key given, writable", obj("DeployKey", unset("spec.generate"),
			set("spec.publicKey", "ssh-ed25519 AAAA flux"), set("spec.readOnly", false))),
		Entry("DeployKey: a public key from a Secret", obj("DeployKey", unset("spec.generate"),
			set("spec.publicKeyFrom", map[string]any{"secretKeyRef": map[string]any{"name": "k", "key": "identity.pub"}}))),
		Entry("BranchProtection: every list under its switch, a glob rule", obj("BranchProtection", set("spec.ruleName", "release/*"),
			set("spec.enablePush", true), set("spec.enablePushWhitelist", true), set("spec.pushWhitelistUsernames", strs("alice", "bob")),
			set("spec.pushWhitelistTeams", strs("web")), set("spec.pushWhitelistDeployKeys", true),
			set("spec.enableForcePush", true), set("spec.enableForcePushAllowlist", true), set("spec.forcePushAllowlistUsernames", strs("alice")),
			set("spec.enableMergeWhitelist", true), set("spec.mergeWhitelistTeams", strs("web")),
			set("spec.enableStatusCheck", true), set("spec.statusCheckContexts", strs("ci/*")),
			set("spec.requiredApprovals", int64(2)), set("spec.enableApprovalsWhitelist", true), set("spec.approvalsWhitelistUsernames", strs("carol")),
			set("spec.protectedFilePatterns", "*.lock;.gitea/**"), set("spec.priority", int64(0)))),
		Entry("BranchProtection: an empty list without its switch clears it", obj("BranchProtection", set("spec.pushWhitelistUsernames", strs()))),
		Entry("BranchProtectionSet: the base object", obj("BranchProtectionSet")),
		Entry("BranchProtectionSet: Authoritative over names", obj("BranchProtectionSet", unset("spec.repositories.organization"),
			set("spec.repositories.names", strs("acme/web", "acme/api")), set("spec.mode", "Authoritative"), set("spec.maxDeletionsPerRepository", int64(0)))),
		Entry("BranchProtectionSet: by topics", obj("BranchProtectionSet", set("spec.repositories.topics", strs("service", "go")))),
		Entry("BranchProtectionSet: Authoritative, removals reported", obj("BranchProtectionSet",
			set("spec.mode", "Authoritative"), set("spec.removals", "Report"))),
		Entry("Team: removals reported", obj("Team", set("spec.members", strs("alice")), set("spec.removals", "Report"))),
		Entry("Team: removals applied", obj("Team", set("spec.members", strs("alice")), set("spec.removals", "Apply"))),
		Entry("Repository: removals reported", obj("Repository",
			set("spec.collaborators", []any{map[string]any{"user": "alice", "permission": "read"}}), set("spec.removals", "Report"))),
		Entry("Team: the base object", obj("Team")),
		Entry("ActionsSecret: the base object", obj("ActionsSecret")),
		Entry("ActionsSecret: an organization's, named", obj("ActionsSecret", unset("spec.repository"),
			set("spec.organization", "acme"), set("spec.name", "_REGISTRY_PASSWORD_2"), set("spec.description", "d"))),
		Entry("ActionsSecret: metadata.name with dots and dashes", obj("ActionsSecret", set("metadata.name", "registry.pass-word"))),
		Entry("ActionsVariable: the base object", obj("ActionsVariable")),
		Entry("ActionsVariable: from a Secret", obj("ActionsVariable", unset("spec.value"),
			set("spec.valueFrom", map[string]any{"secretKeyRef": map[string]any{"name": "s", "key": "k"}}))),
		Entry("Team: every field", obj("Team", set("spec.name", "web.devs_2"), set("spec.previousNames", strs("web")),
			set("spec.description", "d"), set("spec.permission", "write"), set("spec.canCreateOrgRepo", true),
			set("spec.units", map[string]any{"code": "write", "ext_issues": "none", "actions": "read"}),
			set("spec.members", strs("alice", "bob")), set("spec.repositories", strs("web", "api")), set("spec.maxRemovals", int64(0)))),
		Entry("Team: an admin team", obj("Team", set("spec.permission", "admin"), set("spec.includesAllRepositories", true))),
		Entry("Team: Owners with members only", obj("Team", set("spec.name", "Owners"), set("spec.members", strs("alice")),
			set("spec.description", "the owners"))),
		Entry("Repository: every setting, 25 topics and collaborators", obj("Repository",
			set("spec.name", "web.site_v2"), set("spec.previousNames", strs("website")),
			set("spec.deletionPolicy", "Archive"), set("spec.defaultMergeStyle", "fast-forward-only"),
			set("spec.topics", topics(25)), set("spec.website", ""), set("spec.archived", true),
			set("spec.init", map[string]any{"autoInit": true, "license": "MIT", "objectFormat": "sha256", "trustModel": "committer"}),
			set("spec.collaborators", []any{map[string]any{"user": "alice", "permission": "admin"}, map[string]any{"user": "bob", "permission": "read"}}))),
		Entry("Repository: from a template, git content by default", obj("Repository",
			set("spec.init.template.repository", "acme/go-service"))),
		Entry("Repository: from a template, labels and topics only, with settings", obj("Repository",
			set("spec.init.template", map[string]any{"repository": "templates/go-service", "gitContent": false, "labels": true, "topics": true}),
			set("spec.topics", strs("go")), set("spec.defaultBranch", "trunk"), set("spec.private", true))),
		Entry("Repository: from a template, every part", obj("Repository",
			set("spec.init.template", map[string]any{"repository": "acme/go-service", "gitContent": true, "topics": true, "labels": true,
				"webhooks": true, "gitHooks": true, "avatar": true, "protectedBranches": true}))),
		Entry("Label: in a repository", obj("Label", unset("spec.organization"), set("spec.repository", "acme/web.site_v2"))),
		Entry("Label: repository owner and name at their length limits", obj("Label",
			unset("spec.organization"), set("spec.repository", name40+"/"+strings.Repeat("r", 100)))),
		Entry("Label: repository name starting with a dot", obj("Label", unset("spec.organization"), set("spec.repository", "acme/.profile"))),
		Entry("Label: 3-digit colour without #", obj("Label", set("spec.color", "fff"))),
		Entry("Label: upper-case 3-digit colour", obj("Label", set("spec.color", "#FFF"))),
		Entry("Label: mixed-case 6-digit colour without #", obj("Label", set("spec.color", "A1b2C3"))),
		Entry("Project: the base object", obj("Project")),
		Entry("Project: closed bug triage board", obj("Project",
			set("spec.templateType", "bug_triage"), set("spec.state", "closed"), set("spec.cardType", "images_and_text"))),
		Entry("Receiver: the base object", obj("Receiver")),
		Entry("Receiver: two organizations, a secret, one event, a port and a trailing slash", obj("Receiver",
			set("spec.organizations", strs("acme", "acme-labs")), set("spec.url", "http://receiver.forge-system:9443/"),
			set("spec.secretRef", map[string]any{"name": "acme-events", "key": "secret"}), set("spec.events", strs("repository")))),
		Entry("RepositoryFile: the base object", obj("RepositoryFile")),
		Entry("RepositoryFile: every field, a file from a ConfigMap", obj("RepositoryFile",
			set("spec.branch", "release/1.x"), set("spec.mode", "CreateOnly"), set("spec.message", "chore: starter files"),
			set("spec.author", map[string]any{"name": "Platform Bot", "email": "bot@example.com"}),
			set("spec.deletionPolicy", "Delete"),
			set("spec.files", []any{
				map[string]any{"path": ".gitea/workflows/ci.yaml", "configMapRef": map[string]any{"name": "ci", "key": "ci.yaml"}},
				map[string]any{"path": "LICENSE", "content": ""}}))),
		Entry("FileSet: the base object", obj("FileSet")),
		Entry("FileSet: a message with trailers and words of Kept-by", obj("FileSet",
			set("spec.message", "chore: files kept by the platform\n\nSigned-off-by: Platform <platform@example.com>"))),
		Entry("FileSet: every field, by topics, a file from a ConfigMap", obj("FileSet",
			set("spec.repositories.topics", strs("service")), set("spec.branch", "main"), set("spec.mode", "CreateOnly"),
			set("spec.message", "chore: starter files"), set("spec.author", map[string]any{"name": "Platform Bot", "email": "bot@example.com"}),
			set("spec.deletionPolicy", "Delete"),
			set("spec.files", []any{
				map[string]any{"path": ".gitea/workflows/ci.yaml", "configMapRef": map[string]any{"name": "ci", "key": "ci.yaml"}},
				map[string]any{"path": "LICENSE", "content": ""}}))),
		Entry("RepositorySet: the base object", obj("RepositorySet")),
		Entry("RepositorySet: topics and teams alone, over names, removals reported, access taken back on deletion", obj("RepositorySet",
			unset("spec.settings"), unset("spec.repositories.organization"), set("spec.repositories.names", strs("acme/web", "acme/api")),
			set("spec.topics", strs("managed")), set("spec.teams", strs("developers", "release-managers")),
			set("spec.removals", "Report"), set("spec.deletionPolicy", "Delete"))),
		Entry("RepositorySet: every setting, by topics", obj("RepositorySet", set("spec.repositories.topics", strs("service")),
			set("spec.settings", map[string]any{"description": "d", "website": "https://acme.example.com", "private": true, "template": false,
				"defaultBranch": "main", "hasIssues": true, "hasWiki": false, "hasPullRequests": true, "hasProjects": false,
				"hasReleases": true, "hasPackages": false, "hasActions": true, "hasCode": true, "allowMergeCommits": false,
				"allowRebase": false, "allowRebaseExplicit": false, "allowSquashMerge": true, "allowFastForwardOnlyMerge": false,
				"allowManualMerge": false, "autodetectManualMerge": false, "allowRebaseUpdate": true, "allowMergeUpdate": true,
				"defaultUpdateStyle": "rebase", "defaultMergeStyle": "squash", "defaultDeleteBranchAfterMerge": true,
				"defaultAllowMaintainerEdit": true, "ignoreWhitespaceConflicts": false}))),
		Entry("RunnerSetting: the base object", obj("RunnerSetting")),
		Entry("RunnerSetting: repository runner by id", obj("RunnerSetting",
			unset("spec.organization"), set("spec.repository", "acme/web"),
			set("spec.runner", map[string]any{"id": int64(1)}))),
	}, accepted...)...)

	It("refuses a Team unit the forge does not have, naming it", func(ctx SpecContext) {
		err := create(ctx, obj("Team", set("spec.units", map[string]any{"code": "write", "deploy": "read"})))
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring(`unknown field "spec.units.deploy"`))
	})

	It("refuses a RepositorySet setting no set writes (a repository's name, its archive, its collaborators), naming it", func(ctx SpecContext) {
		for path, v := range map[string]any{"spec.settings.name": "web", "spec.settings.archived": true, "spec.settings.owner": "acme",
			"spec.collaborators": []any{}, "spec.settings.init": map[string]any{}} {
			err := create(ctx, obj("RepositorySet", set(path, v)))
			Expect(err).To(HaveOccurred(), path)
			Expect(err.Error()).To(ContainSubstring(`unknown field "%s"`, path))
		}
	})

	DescribeTable("rejects an invalid object, naming the offending field", append([]any{
		func(ctx SpecContext, u *unstructured.Unstructured, field string) {
			expectRejected(create(ctx, u), field)
		},

		// ActionsSecret and ActionsVariable
		Entry("ActionsSecret: a lower-case name", obj("ActionsSecret", set("spec.name", "deploy_token")), "spec.name"),
		Entry("ActionsSecret: a GITEA_ name", obj("ActionsSecret", set("spec.name", "GITEA_TOKEN")), "spec.name"),
		Entry("ActionsSecret: a GITHUB_ name", obj("ActionsSecret", set("spec.name", "GITHUB_TOKEN")), "spec.name"),
		Entry("ActionsSecret: the name CI", obj("ActionsSecret", set("spec.name", "CI")), "spec.name"),
		Entry("ActionsSecret: a name starting with a digit", obj("ActionsSecret", set("spec.name", "1TOKEN")), "spec.name"),
		Entry("ActionsSecret: metadata.name standing for CI", obj("ActionsSecret", set("metadata.name", "ci")), "metadata.name"),
		Entry("ActionsSecret: metadata.name standing for a GITEA_ name", obj("ActionsSecret", set("metadata.name", "gitea-token")), "metadata.name"),
		Entry("ActionsSecret: both scopes", obj("ActionsSecret", set("spec.organization", "acme")), "exactly one of repository and organization"),
		Entry("ActionsSecret: no scope", obj("ActionsSecret", unset("spec.repository")), "exactly one of repository and organization"),
		Entry("ActionsSecret: no valueFrom", obj("ActionsSecret", unset("spec.valueFrom")), "spec.valueFrom"),
		Entry("ActionsVariable: value and valueFrom", obj("ActionsVariable",
			set("spec.valueFrom", map[string]any{"configMapKeyRef": map[string]any{"name": "ci", "key": "k"}})), "exactly one of value and valueFrom"),
		Entry("ActionsVariable: neither value nor valueFrom", obj("ActionsVariable", unset("spec.value")), "exactly one of value and valueFrom"),
		Entry("ActionsVariable: an empty value", obj("ActionsVariable", set("spec.value", "")), "spec.value"),
		Entry("ActionsVariable: valueFrom a ConfigMap and a Secret", obj("ActionsVariable", unset("spec.value"),
			set("spec.valueFrom", map[string]any{"configMapKeyRef": map[string]any{"name": "ci", "key": "k"},
				"secretKeyRef": map[string]any{"name": "s", "key": "k"}})), "spec.valueFrom"),

		// DeployKey: exactly one source of the key
		Entry("DeployKey: no key at all", obj("DeployKey", unset("spec.generate")),
			"exactly one of spec.publicKey, spec.publicKeyFrom and spec.generate must be set"),
		Entry("DeployKey: a publicKey and generate", obj("DeployKey", set("spec.publicKey", "ssh-ed25519 AAAA")),
			"exactly one of spec.publicKey, spec.publicKeyFrom and spec.generate must be set"),
		Entry("DeployKey: a key type the operator does not make", obj("DeployKey", set("spec.generate.type", "dsa")), "spec.generate.type"),

		// RunnerRegistrationToken: one scope at most, a Secret to write to
		Entry("RunnerRegistrationToken: a repository and an organization", obj("RunnerRegistrationToken", set("spec.repository", "acme/web")),
			"at most one of spec.repository and spec.organization may be set"),
		Entry("RunnerRegistrationToken: no secretName", obj("RunnerRegistrationToken", unset("spec.secretName")), "spec.secretName"),
		Entry("RunnerRegistrationToken: a secretName no Secret can have", obj("RunnerRegistrationToken", set("spec.secretName", "Acme_Runner")), "spec.secretName"),
		// PushMirror: credentials in spec.auth, never in the address
		Entry("PushMirror: user and password in the address", obj("PushMirror",
			set("spec.remoteAddress", "https://git:s3cret@github.com/acme/web.git")), "must not carry user info"),
		Entry("PushMirror: a user in the address", obj("PushMirror",
			set("spec.remoteAddress", "https://git@github.com/acme/web.git")), "must not carry user info"),
		Entry("PushMirror: an SSH address", obj("PushMirror", set("spec.remoteAddress", "git@github.com:acme/web.git")),
			"must be an http://, https:// or git:// URL"),
		Entry("PushMirror: auth without a password", obj("PushMirror", set("spec.auth", map[string]any{"username": "git"})),
			"spec.auth.passwordSecretRef"),
		Entry("PushMirror: an interval that is no duration", obj("PushMirror", set("spec.interval", "daily")), "spec.interval"),

		// User: only through a ClusterForge
		Entry("User: through a namespaced Forge", obj("User", set("spec.forgeRef.kind", "Forge")),
			"a User is managed only through a ClusterForge whose tenants entry has siteAdmin: true"),
		Entry("User: forgeRef without a kind (a Forge)", obj("User", unset("spec.forgeRef.kind")),
			"a User is managed only through a ClusterForge"),
		Entry("User: an email without @", obj("User", set("spec.email", "ci-bot")), "spec.email"),
		Entry("User: a username the forge refuses", obj("User", set("spec.username", "ci--bot")), "spec.username"),
		Entry("Organization: a forgeRef kind that is none", obj("Organization", set("spec.forgeRef.kind", "Cluster")), "spec.forgeRef.kind"),

		// BranchProtection(Set)
		Entry("BranchProtection: negative approvals", obj("BranchProtection", set("spec.requiredApprovals", int64(-1))), "spec.requiredApprovals"),
		Entry("BranchProtection: a push allow-list without enablePushWhitelist", obj("BranchProtection",
			set("spec.enablePush", true), set("spec.pushWhitelistUsernames", strs("alice"))), "pushWhitelistUsernames needs enablePushWhitelist: true"),
		Entry("BranchProtection: enablePushWhitelist without enablePush", obj("BranchProtection",
			set("spec.enablePushWhitelist", true)), "enablePushWhitelist needs enablePush: true"),
		Entry("BranchProtection: status check contexts without enableStatusCheck", obj("BranchProtection",
			set("spec.statusCheckContexts", strs("ci"))), "statusCheckContexts needs enableStatusCheck: true"),
		Entry("BranchProtection: a force-push allow-list without its switch", obj("BranchProtection", set("spec.enablePush", true),
			set("spec.enableForcePush", true), set("spec.forcePushAllowlistTeams", strs("web"))), "forcePushAllowlistTeams needs enableForcePushAllowlist: true"),
		Entry("BranchProtection: a bypass allow-list without its switch", obj("BranchProtection",
			set("spec.bypassAllowlistTeams", strs("release"))), "bypassAllowlistTeams needs enableBypassAllowlist: true"),
		Entry("BranchProtectionSet: a rule's bypass users without the switch", obj("BranchProtectionSet", set("spec.rules", []any{
			map[string]any{"ruleName": "main", "enableBypassAllowlist": false, "bypassAllowlistUsernames": strs("alice")}})),
			"bypassAllowlistUsernames needs enableBypassAllowlist: true"),
		Entry("BranchProtection: a user twice", obj("BranchProtection", set("spec.enablePush", true), set("spec.enablePushWhitelist", true),
			set("spec.pushWhitelistUsernames", strs("alice", "alice"))), "spec.pushWhitelistUsernames"),
		Entry("BranchProtection: no ruleName", obj("BranchProtection", unset("spec.ruleName")), "spec.ruleName"),
		Entry("BranchProtection: a ruleName with a space", obj("BranchProtection", set("spec.ruleName", "main branch")), "spec.ruleName"),
		Entry("BranchProtectionSet: a rule twice", obj("BranchProtectionSet", set("spec.rules", []any{
			map[string]any{"ruleName": "main"}, map[string]any{"ruleName": "main"}})), "spec.rules"),
		Entry("BranchProtectionSet: a rule's list without its switch", obj("BranchProtectionSet", set("spec.rules", []any{
			map[string]any{"ruleName": "main", "mergeWhitelistUsernames": strs("alice")}})), "mergeWhitelistUsernames needs enableMergeWhitelist: true"),
		Entry("BranchProtectionSet: negative maxDeletionsPerRepository", obj("BranchProtectionSet", set("spec.maxDeletionsPerRepository", int64(-1))), "spec.maxDeletionsPerRepository"),
		Entry("BranchProtectionSet: names and organization", obj("BranchProtectionSet", set("spec.repositories.names", strs("acme/web"))),
			"exactly one of names and organization"),
		Entry("BranchProtectionSet: topics with names", obj("BranchProtectionSet", unset("spec.repositories.organization"),
			set("spec.repositories.names", strs("acme/web")), set("spec.repositories.topics", strs("go"))), "topics apply only with organization"),
		Entry("BranchProtectionSet: an upper-case topic", obj("BranchProtectionSet", set("spec.repositories.topics", strs("Go"))),
			"spec.repositories.topics[0]"),
		// Team
		Entry("Team: a unit at admin", obj("Team", set("spec.units", map[string]any{"code": "admin"})), "spec.units.code"),
		Entry("Team: an unknown permission", obj("Team", set("spec.permission", "owner")), "spec.permission"),
		Entry("Team: admin with units", obj("Team", set("spec.permission", "admin"), set("spec.units", map[string]any{"code": "write"})), "spec.units"),
		Entry("Team: repositories with includesAllRepositories", obj("Team",
			set("spec.includesAllRepositories", true), set("spec.repositories", strs("web"))), "spec.repositories"),
		Entry("Team: a member twice", obj("Team", set("spec.members", strs("alice", "alice"))), "spec.members[1]"),
		Entry("Team: a member twice in another case", obj("Team", set("spec.members", strs("alice", "Alice"))), "spec.members"),
		Entry("Team: a repository twice in another case", obj("Team", set("spec.repositories", strs("web", "WEB"))), "spec.repositories"),
		Entry("Team: a name the forge refuses", obj("Team", set("spec.name", "web team")), "spec.name"),
		Entry("Team: a member name the forge refuses", obj("Team", set("spec.members", strs("al ice"))), "spec.members[0]"),
		Entry("Team: a negative removal limit", obj("Team", set("spec.maxRemovals", int64(-1))), "spec.maxRemovals"),
		Entry("Team: unknown removals", obj("Team", set("spec.removals", "DryRun")), "spec.removals"),
		Entry("BranchProtectionSet: unknown removals", obj("BranchProtectionSet", set("spec.removals", "report")), "spec.removals"),
		Entry("Team: Owners with a permission", obj("Team", set("spec.name", "Owners"), set("spec.members", strs("alice")),
			set("spec.permission", "write")), "the Owners team"),
		Entry("Team: owners (metadata.name) with units", obj("Team", set("metadata.name", "owners"), set("spec.members", strs("alice")),
			set("spec.units", map[string]any{"code": "read"})), "the Owners team"),
		Entry("Team: an unknown visibility", obj("Team", set("spec.visibility", "secret")), "spec.visibility"),
		Entry("Team: Owners with a visibility", obj("Team", set("spec.name", "Owners"), set("spec.members", strs("alice")),
			set("spec.visibility", "private")), "the Owners team"),
		Entry("Repository: an unknown update style", obj("Repository", set("spec.defaultUpdateStyle", "squash")), "spec.defaultUpdateStyle"),
		Entry("Team: Owners with includesAllRepositories", obj("Team", set("spec.name", "OWNERS"), set("spec.members", strs("alice")),
			set("spec.includesAllRepositories", false)), "the Owners team"),
		Entry("Team: Owners with canCreateOrgRepo", obj("Team", set("spec.name", "Owners"), set("spec.members", strs("alice")),
			set("spec.canCreateOrgRepo", true)), "the Owners team"),
		Entry("Team: Owners without members", obj("Team", set("spec.name", "Owners")), "the Owners team"),
		Entry("Team: Owners with an empty members list", obj("Team", set("spec.name", "Owners"), set("spec.members", strs())), "the Owners team"),
		// The Owners team is adopted only by a Team named
		// Owners, and never renamed, in either direction.
		Entry("Team: Owners among the previous names", obj("Team", set("spec.name", "admins"),
			set("spec.previousNames", strs("infra", "Owners"))), "spec.previousNames"),
		Entry("Team: owners among the previous names in another case", obj("Team",
			set("spec.previousNames", strs("OWNERS"))), "spec.previousNames"),
		Entry("Team: Owners with previous names", obj("Team", set("spec.name", "Owners"), set("spec.members", strs("alice")),
			set("spec.previousNames", strs("admins"))), "the Owners team is never renamed"),
		Entry("Team: owners (metadata.name) with previous names", obj("Team", set("metadata.name", "owners"), set("spec.members", strs("alice")),
			set("spec.previousNames", strs("admins"))), "the Owners team is never renamed"),

		// Repository
		Entry("Repository: a name with a space", obj("Repository", set("spec.name", "my web")), "spec.name"),
		Entry("Repository: the name ..", obj("Repository", set("spec.name", "..")), "spec.name"),
		Entry("Repository: a 101-character name", obj("Repository", set("spec.name", strings.Repeat("r", 101))), "spec.name"),
		Entry("Repository: an owner ending in a dash", obj("Repository", set("spec.owner", "acme-")), "spec.owner"),
		Entry("Repository: an upper-case topic", obj("Repository", set("spec.topics", strs("Go"))), "spec.topics[0]"),
		Entry("Repository: a topic with an underscore", obj("Repository", set("spec.topics", strs("a_b"))), "spec.topics[0]"),
		Entry("Repository: a 36-character topic", obj("Repository", set("spec.topics", strs(strings.Repeat("t", 36)))), "spec.topics[0]"),
		Entry("Repository: 26 topics", obj("Repository", set("spec.topics", topics(26))), "spec.topics"),
		Entry("Repository: a topic twice", obj("Repository", set("spec.topics", strs("go", "go"))), "spec.topics[1]"),
		Entry("Repository: an unknown merge style", obj("Repository", set("spec.defaultMergeStyle", "bogus")), "spec.defaultMergeStyle"),
		Entry("Repository: an unknown deletion policy", obj("Repository", set("spec.deletionPolicy", "Destroy")), "spec.deletionPolicy"),
		Entry("Repository: an unknown collaborator permission", obj("Repository",
			set("spec.collaborators", []any{map[string]any{"user": "alice", "permission": "owner"}})), "spec.collaborators[0].permission"),
		Entry("Repository: a collaborator twice", obj("Repository",
			set("spec.collaborators", []any{map[string]any{"user": "alice", "permission": "read"}, map[string]any{"user": "alice", "permission": "write"}})), "spec.collaborators[1]"),
		Entry("Repository: a collaborator twice in another case", obj("Repository",
			set("spec.collaborators", []any{map[string]any{"user": "alice", "permission": "read"}, map[string]any{"user": "Alice", "permission": "write"}})), "spec.collaborators"),
		Entry("Repository: a negative removal limit", obj("Repository", set("spec.maxCollaboratorRemovals", int64(-1))), "spec.maxCollaboratorRemovals"),
		Entry("Repository: unknown removals", obj("Repository", set("spec.removals", "Skip")), "spec.removals"),
		Entry("Repository: an unknown object format", obj("Repository", set("spec.init.objectFormat", "md5")), "spec.init.objectFormat"),
		Entry("Repository: a template with autoInit", obj("Repository",
			set("spec.init", map[string]any{"autoInit": true, "template": map[string]any{"repository": "acme/go-service"}})), "init.template cannot be combined"),
		Entry("Repository: a template with a license", obj("Repository",
			set("spec.init", map[string]any{"license": "MIT", "template": map[string]any{"repository": "acme/go-service"}})), "init.template cannot be combined"),
		Entry("Repository: a template with an object format", obj("Repository",
			set("spec.init", map[string]any{"objectFormat": "sha256", "template": map[string]any{"repository": "acme/go-service"}})), "init.template cannot be combined"),
		Entry("Repository: a template with a trust model", obj("Repository",
			set("spec.init", map[string]any{"trustModel": "committer", "template": map[string]any{"repository": "acme/go-service"}})), "init.template cannot be combined"),
		Entry("Repository: a template copying nothing", obj("Repository",
			set("spec.init.template", map[string]any{"repository": "acme/go-service", "gitContent": false, "labels": false})), "at least one part"),
		Entry("Repository: a template without its owner", obj("Repository",
			set("spec.init.template.repository", "go-service")), "spec.init.template.repository"),
		Entry("Repository: a template naming no repository", obj("Repository",
			set("spec.init.template", map[string]any{"labels": true})), "spec.init.template.repository"),
		Entry("Repository: its own name among the previous names", obj("Repository",
			set("spec.name", "web"), set("spec.previousNames", strs("Web"))), "spec.previousNames"),

		// Forge
		Entry("Forge: auth names no Secret", obj("Forge", unset("spec.auth.tokenSecretRef")), "spec.auth"),
		Entry("Forge: auth names both a token and a basic-auth Secret", obj("Forge",
			set("spec.auth.basicAuthSecretRef.name", "gitea-basic")), "spec.auth"),
		Entry("Forge: ssh url", obj("Forge", set("spec.url", "ssh://git@git.example.com")), "spec.url"),
		Entry("Forge: url without a scheme", obj("Forge", set("spec.url", "git.example.com")), "spec.url"),
		Entry("Forge: url with a query", obj("Forge", set("spec.url", "https://git.example.com/?token=x")), "spec.url"),
		Entry("Forge: url missing", obj("Forge", unset("spec.url")), "spec.url"),
		Entry("Forge: empty token Secret name", obj("Forge", set("spec.auth.tokenSecretRef.name", "")), "spec.auth.tokenSecretRef.name"),
		Entry("Forge: CA Secret without a name", obj("Forge", set("spec.tls.caSecretRef.key", "ca.pem")), "spec.tls.caSecretRef.name"),
		Entry("Forge: timeout without a unit", obj("Forge", set("spec.timeout", "30")), "spec.timeout"),
		Entry("Forge: zero timeout", obj("Forge", set("spec.timeout", "0s")), "spec.timeout"),
		Entry("Forge: qps 0", obj("Forge", set("spec.rateLimit.qps", 0.0)), "spec.rateLimit.qps"),
		Entry("Forge: negative qps", obj("Forge", set("spec.rateLimit.qps", -2.5)), "spec.rateLimit.qps"),
		Entry("Forge: burst 0", obj("Forge", set("spec.rateLimit.burst", int64(0))), "spec.rateLimit.burst"),
		Entry("Forge: burst over 1000", obj("Forge", set("spec.rateLimit.burst", int64(1001))), "spec.rateLimit.burst"),
		Entry("Forge: qps under 0.1", obj("Forge", set("spec.rateLimit.qps", 0.05)), "spec.rateLimit.qps"),
		Entry("Forge: qps over 1000", obj("Forge", set("spec.rateLimit.qps", 1000.5)), "spec.rateLimit.qps"),
		Entry("Forge: timeout over 5m", obj("Forge", set("spec.timeout", "5m1s")), "spec.timeout"),
		Entry("Forge: timeout of 1000h", obj("Forge", set("spec.timeout", "1000h")), "spec.timeout"),
		Entry("Forge: url with user and password", obj("Forge", set("spec.url", "https://bob:hunter2@git.example.com")), "spec.url"),
		Entry("Forge: url with a user only", obj("Forge", set("spec.url", "https://bob@git.example.com")), "spec.url"),
		Entry("Forge: url with @ in the path", obj("Forge", set("spec.url", "https://git.example.com/x@y")), "spec.url"),
		// Names with surrounding whitespace: the forge trims them, and the
		// loop would patch the difference forever.
		Entry("Organization: name with a leading space", obj("Organization", set("spec.name", " acme")), "spec.name"),
		Entry("Organization: fullName with a trailing space", obj("Organization", set("spec.fullName", "Acme Corp ")), "spec.fullName"),
		Entry("Label: name with a leading space", obj("Label", set("spec.name", " bug")), "spec.name"),
		Entry("Label: name with a trailing newline", obj("Label", set("spec.name", "bug\n")), "spec.name"),
		Entry("Project: title with a trailing space", obj("Project", set("spec.title", "Roadmap ")), "spec.title"),
		Entry("Project: title with a leading tab", obj("Project", set("spec.title", "\tRoadmap")), "spec.title"),
		Entry("OrgHook: name with a trailing space", obj("OrgHook", set("spec.name", "ci ")), "spec.name"),
		Entry("RunnerSetting: runner name with a trailing space", obj("RunnerSetting", set("spec.runner.name", "acme-runner-1 ")), "spec.runner.name"),

		// Organization
		Entry("Organization: unknown visibility", obj("Organization", set("spec.visibility", "internal")), "spec.visibility"),
		Entry("Organization: name with --", obj("Organization", set("spec.name", "acme--corp")), "spec.name"),
		Entry("Organization: name with ..", obj("Organization", set("spec.name", "acme..corp")), "spec.name"),
		Entry("Organization: name with __", obj("Organization", set("spec.name", "acme__corp")), "spec.name"),
		Entry("Organization: name with -.", obj("Organization", set("spec.name", "acme-.corp")), "spec.name"),
		Entry("Organization: name ending in -", obj("Organization", set("spec.name", "acme-")), "spec.name"),
		Entry("Organization: name ending in _", obj("Organization", set("spec.name", "acme_")), "spec.name"),
		Entry("Organization: name starting with -", obj("Organization", set("spec.name", "-acme")), "spec.name"),
		Entry("Organization: name with a space", obj("Organization", set("spec.name", "acme corp")), "spec.name"),
		Entry("Organization: name of 41 characters", obj("Organization", set("spec.name", name41)), "spec.name"),
		Entry("Organization: metadata.name of 41 characters standing in for spec.name", obj("Organization",
			set("metadata.name", name41)), "metadata.name"),
		Entry("Organization: metadata.name with -- standing in for spec.name", obj("Organization",
			set("metadata.name", "acme--corp")), "metadata.name"),
		Entry("Organization: ftp website", obj("Organization", set("spec.website", "ftp://acme.example.com")), "spec.website"),
		Entry("Organization: website without a scheme", obj("Organization", set("spec.website", "acme.example.com")), "spec.website"),
		Entry("Organization: e-mail without @", obj("Organization", set("spec.email", "platform")), "spec.email"),
		Entry("Organization: fullName over 100 characters", obj("Organization", set("spec.fullName", strings.Repeat("A", 101))), "spec.fullName"),
		Entry("Organization: location over 50 characters", obj("Organization", set("spec.location", strings.Repeat("B", 51))), "spec.location"),
		Entry("Organization: description over 255 characters", obj("Organization", set("spec.description", strings.Repeat("d", 256))), "spec.description"),
		Entry("Organization: unknown deletionPolicy", obj("Organization", set("spec.deletionPolicy", "Retain")), "spec.deletionPolicy"),
		Entry("Organization: unknown managementPolicy", obj("Organization", set("spec.managementPolicy", "ReadOnly")), "spec.managementPolicy"),
		Entry("Organization: syncInterval in words", obj("Organization", set("spec.syncInterval", "10 minutes")), "spec.syncInterval"),
		Entry("Organization: syncInterval in days", obj("Organization", set("spec.syncInterval", "1d")), "spec.syncInterval"),
		Entry("Organization: syncInterval under 1s", obj("Organization", set("spec.syncInterval", "500ms")), "spec.syncInterval"),
		Entry("Organization: forgeRef missing", obj("Organization", unset("spec.forgeRef")), "spec.forgeRef"),

		// OrgHook
		Entry("OrgHook: unknown type", obj("OrgHook", set("spec.type", "jenkins")), "spec.type"),
		Entry("OrgHook: type missing", obj("OrgHook", unset("spec.type")), "spec.type"),
		Entry("OrgHook: unknown contentType", obj("OrgHook", set("spec.contentType", "xml")), "spec.contentType"),
		Entry("OrgHook: unknown event", obj("OrgHook", set("spec.events", strs("push", "pushes"))), "spec.events[1]"),
		Entry("OrgHook: event in the wrong case", obj("OrgHook", set("spec.events", strs("Push"))), "spec.events[0]"),
		Entry("OrgHook: duplicate event", obj("OrgHook", set("spec.events", strs("push", "push"))), "spec.events[1]"),
		Entry("OrgHook: duplicate group event further down", obj("OrgHook",
			set("spec.events", strs("issues", "push", "issues"))), "spec.events[2]"),
		Entry("OrgHook: both url and urlSecretRef", obj("OrgHook",
			set("spec.urlSecretRef", map[string]any{"name": "ci-hook", "key": "url"})), "spec.urlSecretRef"),
		Entry("OrgHook: neither url nor urlSecretRef", obj("OrgHook", unset("spec.url")), "spec.urlSecretRef"),
		// RepoHook shares OrgHook's fields; its own rules are checked once.
		Entry("RepoHook: neither url nor urlSecretRef", obj("RepoHook", unset("spec.url")), "spec.urlSecretRef"),
		Entry("RepoHook: slack without config", obj("RepoHook", set("spec.type", "slack")), "spec.config"),
		Entry("RepoHook: repository without owner", obj("RepoHook", set("spec.repository", "web")), "spec.repository"),
		Entry("RepoHook: unknown event", obj("RepoHook", set("spec.events", strs("push", "pushes"))), "spec.events[1]"),
		Entry("OrgHook: ftp url", obj("OrgHook", set("spec.url", "ftp://ci.acme.example.com/hook")), "spec.url"),
		Entry("OrgHook: urlSecretRef without a key", obj("OrgHook",
			unset("spec.url"), set("spec.urlSecretRef", map[string]any{"name": "ci-hook"})), "spec.urlSecretRef.key"),
		Entry("OrgHook: secretRef key with a space", obj("OrgHook",
			set("spec.secretRef", map[string]any{"name": "acme-webhook", "key": "web hook"})), "spec.secretRef.key"),
		Entry("OrgHook: slack without config", obj("OrgHook", set("spec.type", "slack")), "spec.config"),
		Entry("OrgHook: slack config without channel", obj("OrgHook",
			set("spec.type", "slack"), set("spec.config", map[string]any{"username": "gitea"})), "spec.config"),
		Entry("OrgHook: slack with an empty channel", obj("OrgHook",
			set("spec.type", "slack"), set("spec.config", map[string]any{"channel": ""})), "spec.config"),
		Entry("OrgHook: config holds url", obj("OrgHook", set("spec.config.url", "https://evil.example.com")), "spec.config"),
		Entry("OrgHook: config holds content_type", obj("OrgHook", set("spec.config.content_type", "form")), "spec.config"),
		Entry("OrgHook: config holds secret", obj("OrgHook", set("spec.config.secret", "s3cr3t")), "spec.config"),
		Entry("OrgHook: organization with __", obj("OrgHook", set("spec.organization", "acme__corp")), "spec.organization"),
		Entry("OrgHook: organization ending in .", obj("OrgHook", set("spec.organization", "acme.")), "spec.organization"),
		Entry("OrgHook: branchFilter over 255 characters", obj("OrgHook", set("spec.branchFilter", strings.Repeat("b", 256))), "spec.branchFilter"),
		Entry("OrgHook: active as a string", obj("OrgHook", set("spec.active", "yes")), "spec.active"),
		Entry("OrgHook: unknown deletionPolicy", obj("OrgHook", set("spec.deletionPolicy", "Purge")), "spec.deletionPolicy"),

		// Label
		Entry("Label: both repository and organization", obj("Label", set("spec.repository", "acme/web")), "spec.organization"),
		Entry("Label: neither repository nor organization", obj("Label", unset("spec.organization")), "spec.repository"),
		Entry("Label: colour with a non-hex digit", obj("Label", set("spec.color", "#12345g")), "spec.color"),
		Entry("Label: colour of 4 digits", obj("Label", set("spec.color", "#1234")), "spec.color"),
		Entry("Label: colour by name", obj("Label", set("spec.color", "red")), "spec.color"),
		Entry("Label: colour with two #", obj("Label", set("spec.color", "##fff")), "spec.color"),
		Entry("Label: colour missing", obj("Label", unset("spec.color")), "spec.color"),
		Entry("Label: repository without owner", obj("Label", unset("spec.organization"), set("spec.repository", "web")), "spec.repository"),
		Entry("Label: repository with two slashes", obj("Label", unset("spec.organization"), set("spec.repository", "acme/web/docs")), "spec.repository"),
		Entry("Label: repository ..", obj("Label", unset("spec.organization"), set("spec.repository", "acme/..")), "spec.repository"),
		Entry("Label: repository owner ending in -", obj("Label", unset("spec.organization"), set("spec.repository", "acme-/web")), "spec.repository"),
		Entry("Label: repository owner with --", obj("Label", unset("spec.organization"), set("spec.repository", "acme--corp/web")), "spec.repository"),
		Entry("Label: repository owner of 41 characters", obj("Label",
			unset("spec.organization"), set("spec.repository", name41+"/web")), "spec.repository"),
		Entry("Label: repository name of 101 characters", obj("Label",
			unset("spec.organization"), set("spec.repository", "acme/"+strings.Repeat("r", 101))), "spec.repository"),
		Entry("Label: organization with -.", obj("Label", set("spec.organization", "acme-.corp")), "spec.organization"),
		Entry("Label: empty name", obj("Label", set("spec.name", "")), "spec.name"),
		Entry("Label: name over 255 characters", obj("Label", set("spec.name", strings.Repeat("n", 256))), "spec.name"),
		Entry("Label: description over 255 characters", obj("Label", set("spec.description", strings.Repeat("d", 256))), "spec.description"),
		Entry("Label: negative syncInterval", obj("Label", set("spec.syncInterval", "-1m")), "spec.syncInterval"),

		// Receiver
		Entry("Receiver: no organization", obj("Receiver", set("spec.organizations", strs())), "spec.organizations"),
		Entry("Receiver: organizations missing", obj("Receiver", unset("spec.organizations")), "spec.organizations"),
		Entry("Receiver: an organization twice", obj("Receiver", set("spec.organizations", strs("acme", "acme"))), "spec.organizations"),
		Entry("Receiver: an organization ending in -", obj("Receiver", set("spec.organizations", strs("acme-"))), "spec.organizations"),
		Entry("Receiver: url with a path", obj("Receiver", set("spec.url", "https://ops.example.com/hooks")), "spec.url"),
		Entry("Receiver: url without a scheme", obj("Receiver", set("spec.url", "ops.example.com")), "spec.url"),
		Entry("Receiver: url missing", obj("Receiver", unset("spec.url")), "spec.url"),
		Entry("Receiver: unknown event", obj("Receiver", set("spec.events", strs("issues"))), "spec.events"),
		Entry("Receiver: no event", obj("Receiver", set("spec.events", strs())), "spec.events"),
		// RepositoryFile
		Entry("RepositoryFile: no file", obj("RepositoryFile", set("spec.files", []any{})), "spec.files"),
		Entry("RepositoryFile: a path with ..", obj("RepositoryFile", set("spec.files", []any{
			map[string]any{"path": "docs/../x", "content": "x"}})), "spec.files[0].path"),
		Entry("RepositoryFile: an absolute path", obj("RepositoryFile", set("spec.files", []any{
			map[string]any{"path": "/x", "content": "x"}})), "spec.files[0].path"),
		Entry("RepositoryFile: a .git component", obj("RepositoryFile", set("spec.files", []any{
			map[string]any{"path": ".GIT/hooks/x", "content": "x"}})), "spec.files[0].path"),
		Entry("RepositoryFile: both content and configMapRef", obj("RepositoryFile", set("spec.files", []any{
			map[string]any{"path": "x", "content": "x", "configMapRef": map[string]any{"name": "c", "key": "k"}}})), "spec.files[0]"),
		Entry("RepositoryFile: neither content nor configMapRef", obj("RepositoryFile", set("spec.files", []any{
			map[string]any{"path": "x"}})), "spec.files[0]"),
		Entry("RepositoryFile: one path twice", obj("RepositoryFile", set("spec.files", []any{
			map[string]any{"path": "x", "content": "a"}, map[string]any{"path": "x", "content": "b"}})), "spec.files[1]"),
		Entry("RepositoryFile: unknown mode", obj("RepositoryFile", set("spec.mode", "Append")), "spec.mode"),
		Entry("RepositoryFile: author without email", obj("RepositoryFile", set("spec.author", map[string]any{"name": "Bot"})), "spec.author.email"),
		Entry("RepositoryFile: a message with a Kept-by trailer of its own", obj("RepositoryFile",
			set("spec.message", "chore: files\n\nKept-by: FileSet platform/codeowners")), "spec.message"),

		// Project
		Entry("Project: unknown cardType", obj("Project", set("spec.cardType", "images")), "spec.cardType"),
		Entry("Project: unknown templateType", obj("Project", set("spec.templateType", "scrum")), "spec.templateType"),
		Entry("Project: unknown state", obj("Project", set("spec.state", "archived")), "spec.state"),
		Entry("Project: empty title", obj("Project", set("spec.title", "")), "spec.title"),
		Entry("Project: title missing", obj("Project", unset("spec.title")), "spec.title"),
		Entry("Project: title over 255 characters", obj("Project", set("spec.title", strings.Repeat("t", 256))), "spec.title"),
		Entry("Project: repository without owner", obj("Project", set("spec.repository", "web")), "spec.repository"),
		Entry("Project: repository missing", obj("Project", unset("spec.repository")), "spec.repository"),
		Entry("Project: deletionPolicy in lower case", obj("Project", set("spec.deletionPolicy", "delete")), "spec.deletionPolicy"),

		// RunnerSetting
		Entry("RunnerSetting: runner by both id and name", obj("RunnerSetting", set("spec.runner.id", int64(7))), "spec.runner"),
		Entry("RunnerSetting: runner by neither id nor name", obj("RunnerSetting", set("spec.runner", map[string]any{})), "spec.runner"),
		Entry("RunnerSetting: runner id 0", obj("RunnerSetting",
			set("spec.runner", map[string]any{"id": int64(0)})), "spec.runner.id"),
		Entry("RunnerSetting: negative runner id", obj("RunnerSetting",
			set("spec.runner", map[string]any{"id": int64(-3)})), "spec.runner.id"),
		Entry("RunnerSetting: empty runner name", obj("RunnerSetting", set("spec.runner.name", "")), "spec.runner.name"),
		Entry("RunnerSetting: runner missing", obj("RunnerSetting", unset("spec.runner")), "spec.runner"),
		Entry("RunnerSetting: both repository and organization", obj("RunnerSetting", set("spec.repository", "acme/web")), "spec.organization"),
		Entry("RunnerSetting: neither repository nor organization", obj("RunnerSetting", unset("spec.organization")), "spec.repository"),
		Entry("RunnerSetting: disabled missing", obj("RunnerSetting", unset("spec.disabled")), "spec.disabled"),
		Entry("RunnerSetting: disabled as a string", obj("RunnerSetting", set("spec.disabled", "yes")), "spec.disabled"),
		Entry("RunnerSetting: managementPolicy in lower case", obj("RunnerSetting", set("spec.managementPolicy", "observe")), "spec.managementPolicy"),
		Entry("RunnerSetting: syncInterval with a space", obj("RunnerSetting", set("spec.syncInterval", "1h 30m")), "spec.syncInterval"),

		// FileSet
		Entry("FileSet: no file", obj("FileSet", set("spec.files", []any{})), "spec.files"),
		Entry("FileSet: a path with ..", obj("FileSet", set("spec.files", []any{
			map[string]any{"path": "docs/../x", "content": "x"}})), "spec.files[0].path"),
		Entry("FileSet: no repositories selected", obj("FileSet", unset("spec.repositories.organization")), "exactly one of names and organization"),
		Entry("FileSet: unknown mode", obj("FileSet", set("spec.mode", "Append")), "spec.mode"),
		Entry("FileSet: a message with a Kept-by line in another case", obj("FileSet",
			set("spec.message", "chore: files\nkept-by : RepositoryFile platform/owners")), "spec.message"),
		// RepositorySet
		Entry("RepositorySet: nothing to apply", obj("RepositorySet", unset("spec.settings")), "at least one of settings, topics and teams"),
		Entry("RepositorySet: an unknown merge style", obj("RepositorySet", set("spec.settings.defaultMergeStyle", "bogus")), "spec.settings.defaultMergeStyle"),
		Entry("RepositorySet: an upper-case topic", obj("RepositorySet", set("spec.topics", strs("Managed"))), "spec.topics[0]"),
		Entry("RepositorySet: 26 topics", obj("RepositorySet", set("spec.topics", topics(26))), "spec.topics"),
		Entry("RepositorySet: a team twice in another case", obj("RepositorySet", set("spec.teams", strs("developers", "Developers"))),
			"teams must not name a team twice"),
		Entry("RepositorySet: a team name the forge refuses", obj("RepositorySet", set("spec.teams", strs("web team"))), "spec.teams[0]"),
		Entry("RepositorySet: an unknown removals", obj("RepositorySet", set("spec.removals", "Ignore")), "spec.removals"),
		Entry("RepositorySet: deletionPolicy Archive", obj("RepositorySet", set("spec.deletionPolicy", "Archive")), "spec.deletionPolicy"),
		Entry("RepositorySet: no repositories", obj("RepositorySet", unset("spec.repositories")), "spec.repositories"),
	}, rejected...)...)
})
