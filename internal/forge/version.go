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

package forge

import (
	"fmt"
	"regexp"
	"strings"
)

// Flavors reported by ParseVersion.
const (
	FlavorGitea   = "gitea"
	FlavorForgejo = "forgejo"
)

// versionPattern is a leading semver: major.minor[.patch][-pre][+build].
var versionPattern = regexp.MustCompile(`^v?(\d+)\.(\d+)(?:\.(\d+))?(-[0-9A-Za-z.-]+)?(?:\+(.*))?$`)

// ParseVersion reads the string of GET /version.
//
//	"1.27.3"                -> gitea, 1.27.3
//	"1.28.0+dev-12-gabcdef" -> gitea, 1.28.0 (dev build)
//	"15.0.3+gitea-1.22.0"   -> forgejo, 15.0.3 (Forgejo marks its Gitea base)
//	"development", ""       -> "", "", false (no stamped version)
//
// The semver keeps a pre-release suffix ("1.26.0-rc1") and drops build
// metadata; a missing patch is read as 0.
func ParseVersion(s string) (flavor, semver string, ok bool) {
	m := versionPattern.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return "", "", false
	}
	patch := m[3]
	if patch == "" {
		patch = "0"
	}
	semver = m[1] + "." + m[2] + "." + patch + m[4]
	flavor = FlavorGitea
	build := m[5]
	if strings.HasPrefix(build, "gitea-") {
		flavor = FlavorForgejo
	}
	return flavor, semver, true
}

// Server is what the operator knows of a forge from its GET /version: the
// loop reads it once per pass from the Forge's status and hands it to every
// kind, so that no kind parses versions itself.
type Server struct {
	// Version is the string the server reported; "" before the Forge's first check.
	Version string
	// Flavor is FlavorGitea or FlavorForgejo; "" for an unstamped version.
	Flavor string
	// SemVer is major.minor.patch[-pre]; "" for an unstamped version.
	SemVer string
	// ReturnsHookAuthHeader tells whether the server shows a hook's
	// authorization header on read: Gitea before 1.27 and Forgejo do;
	// Gitea 1.27 answers "". An unknown version counts as hiding it.
	ReturnsHookAuthHeader bool
	// LacksWorkflowRunEvent tells that the server drops the hook event
	// workflow_run (Gitea before 1.25 stores every other event it is sent
	// but not that one, so a hook asking for it would differ after every
	// write). Unknown versions count as having it.
	LacksWorkflowRunEvent bool
	// LacksRunnerEdit tells that the server has no PATCH
	// .../actions/runners/{id} (Gitea before 1.26 and Forgejo: 404 or
	// 405), so a runner cannot be enabled or disabled through the API.
	// Unknown versions count as having it: the refused PATCH then tells.
	LacksRunnerEdit bool
	// LacksTagProtections tells that the server has no tag protection API
	// (/repos/{o}/{r}/tag_protections came with Gitea 1.23.0). Forgejo has
	// taken it in since, from which release is not known here: Forgejo and
	// unknown versions count as having it, and a kind tells a missing
	// route (plain-text 404) from the answer.
	LacksTagProtections bool
	// TellsTokenScopes tells that the server answers GET /token with the
	// token's scopes (Gitea 1.27 and later; earlier releases and Forgejo
	// have no such route). Unknown versions are not asked: the forge's 403
	// is their only word on scopes.
	TellsTokenScopes bool
}

// NewServer reads what a forge can do from the version it reported.
func NewServer(version string) Server {
	s := Server{Version: version}
	var ok bool
	if s.Flavor, s.SemVer, ok = ParseVersion(version); !ok {
		return s
	}
	var major, minor int
	_, _ = fmt.Sscanf(s.SemVer, "%d.%d", &major, &minor)
	s.ReturnsHookAuthHeader = s.Flavor == FlavorForgejo || (major == 1 && minor < 27)
	s.LacksWorkflowRunEvent = s.Flavor == FlavorGitea && major == 1 && minor < 25
	s.LacksRunnerEdit = s.Flavor == FlavorForgejo || (major == 1 && minor < 26)
	s.LacksTagProtections = s.Flavor == FlavorGitea && major == 1 && minor < 23
	s.TellsTokenScopes = s.Flavor == FlavorGitea && (major > 1 || minor >= 27)
	return s
}

// Name is the flavor and version for messages ("gitea 1.26.0"), "server" when unstamped.
func (s Server) Name() string {
	if s.Flavor == "" {
		return "server"
	}
	return s.Flavor + " " + s.SemVer
}

// ReportedVersion is the version as reported, for messages; "unknown" when none was.
func (s Server) ReportedVersion() string {
	if s.Version == "" {
		return "unknown"
	}
	return s.Version
}

// The branch rule fields one flavor has and the other lacks, named as
// BranchProtection names them (branchprotections.go records where each
// fact was read). Either server ignores a JSON field it does not know.
var (
	giteaOnlyRuleFields = []string{"Priority", "EnableForcePush", "EnableForcePushAllowlist", "ForcePushAllowlistUsernames",
		"ForcePushAllowlistTeams", "ForcePushAllowlistDeployKeys", "BlockAdminMergeOverride"}
	forgejoOnlyRuleFields = []string{"ApplyToAdmins"}
)

// LacksRuleFields names (as BranchProtection does) the branch rule fields
// the server does not have: Gitea's own on Forgejo, Forgejo's own on
// Gitea; none for a server of unknown flavor, which is not judged.
func (s Server) LacksRuleFields() []string {
	switch s.Flavor {
	case FlavorForgejo:
		return giteaOnlyRuleFields
	case FlavorGitea:
		return forgejoOnlyRuleFields
	}
	return nil
}
