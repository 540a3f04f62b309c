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
	"reflect"
	"strings"
)

// Release gates: what some releases or flavors of the forge lack, declared
// once here, with the release of each flavor that has it. A server ignores
// a JSON field it does not know (Gitea and Forgejo both decode bodies
// leniently), so a field written to a release without it would be dropped
// without a word and the resource would seem applied: every kind asks
// these gates before it reads or writes, and a resource that needs what
// the server lacks is Unsupported instead. A new field is one line of
// fieldGates; an API a kind needs is one Gate variable.

// Release is the first release of a flavor that has something: Always
// (every release the operator supports), Never, or a version ("1.27",
// compared by major and minor).
type Release string

// The two Releases that are no version.
const (
	Always Release = ""
	Never  Release = "never"
)

// Gate is one thing some releases lack: a field of a spec (In, the spec
// type's Go name, and Field, the field's JSON name as users write it), or
// an API or value a kind needs (What, the words messages use).
type Gate struct {
	In, Field string
	What      string
	// Gitea and Forgejo say from which release of that flavor the server
	// has it.
	Gitea, Forgejo Release
}

// Gates of whole APIs and values, asked by the kinds that need them.
var (
	// PATCH .../actions/runners/{id} came with Gitea 1.26; Forgejo has none
	// (404 or 405).
	GateRunnerEdit = Gate{What: "PATCH .../actions/runners/{id} (enabling or disabling a runner)", Gitea: "1.26", Forgejo: Never}
	// /repos/{o}/{r}/tag_protections came with Gitea 1.23. Forgejo has
	// taken it in since, from which release is not known here: Forgejo
	// counts as having it, and the kind tells a missing route (plain-text
	// 404) from the answer.
	GateTagProtections = Gate{What: "the tag protection API", Gitea: "1.23"}
	// Gitea before 1.25 stores every other hook event it is sent but drops
	// workflow_run, so a hook asking for it would differ after every write.
	GateWorkflowRunEvent = Gate{What: "the hook event workflow_run", Gitea: "1.25"}
	// GET /token answers with the token's scopes from Gitea 1.27; earlier
	// releases and Forgejo have no such route.
	GateTokenScopes = Gate{What: "GET /token (a token's scopes)", Gitea: "1.27", Forgejo: Never}
	// A push moves the repository's updated_at from Gitea 1.24
	// (services/repository/push.go calls UpdateRepositoryUpdatedTime; so
	// do the contents API and the web editor, through the same files
	// service), probed on 1.24.6 and 1.27.3: the file kinds list a branch's
	// tree only where it moved (DESIGN "Reading only what moved"). Forgejo
	// is not known to: its file kinds list every tree every interval, as on
	// a server of unknown release (Offers).
	GateUpdatedOnPush = Gate{What: "updated_at moved by every push", Gitea: "1.24", Forgejo: Never}
)

// fieldGates are the spec fields some releases lack. Forgejo's and
// Gitea's branch rules differ (branchprotections.go records where each
// fact was read). The fields Gitea 1.25 and 1.27 added were read in
// Gitea's modules/structs (repo_branch.go, org_team.go, repo.go) and
// probed on 1.26.4 and 1.27.3; Forgejo is not known to have them, and
// counting it as lacking them means no write it would drop.
var fieldGates = []Gate{
	{In: "BranchProtectionRule", Field: "priority", Forgejo: Never},
	{In: "BranchProtectionRule", Field: "enableForcePush", Forgejo: Never},
	{In: "BranchProtectionRule", Field: "enableForcePushAllowlist", Forgejo: Never},
	{In: "BranchProtectionRule", Field: "forcePushAllowlistUsernames", Forgejo: Never},
	{In: "BranchProtectionRule", Field: "forcePushAllowlistTeams", Forgejo: Never},
	{In: "BranchProtectionRule", Field: "forcePushAllowlistDeployKeys", Forgejo: Never},
	{In: "BranchProtectionRule", Field: "blockAdminMergeOverride", Forgejo: Never},
	{In: "BranchProtectionRule", Field: "applyToAdmins", Gitea: Never},
	{In: "BranchProtectionRule", Field: "enableBypassAllowlist", Gitea: "1.27", Forgejo: Never},
	{In: "BranchProtectionRule", Field: "bypassAllowlistUsernames", Gitea: "1.27", Forgejo: Never},
	{In: "BranchProtectionRule", Field: "bypassAllowlistTeams", Gitea: "1.27", Forgejo: Never},
	{In: "TeamSpec", Field: "visibility", Gitea: "1.27", Forgejo: Never},
	{In: "RepositorySettings", Field: "hasCode", Gitea: "1.25", Forgejo: Never},
	// Gitea 1.24 takes these two in an edit but never answers them (its
	// api.Repository has no such fields; 1.25 added them, probed on 1.24.6
	// and 1.25.5): a spec setting one could never be seen applied.
	{In: "RepositorySettings", Field: "allowManualMerge", Gitea: "1.25", Forgejo: Never},
	{In: "RepositorySettings", Field: "autodetectManualMerge", Gitea: "1.25", Forgejo: Never},
	{In: "RepositorySettings", Field: "allowMergeUpdate", Gitea: "1.27", Forgejo: Never},
	{In: "RepositorySettings", Field: "defaultUpdateStyle", Gitea: "1.27", Forgejo: Never},
}

// gateFields adds the gates of an area's spec fields to fieldGates, from
// a package-level var of the area's own file, so a new field's gate sits
// beside its calls.
func gateFields(gates ...Gate) bool {
	fieldGates = append(fieldGates, gates...)
	return true
}

// FieldGates are the gates of the fields of the spec type named in (its
// Go name), in declaration order.
func FieldGates(in string) []Gate {
	var out []Gate
	for _, g := range fieldGates {
		if g.In == in {
			out = append(out, g)
		}
	}
	return out
}

// Name is the field's name, or What.
func (g Gate) Name() string {
	if g.Field != "" {
		return g.Field
	}
	return g.What
}

// since is the release of flavor from which the server has it.
func (g Gate) since(flavor string) Release {
	if flavor == FlavorForgejo {
		return g.Forgejo
	}
	return g.Gitea
}

// Has says which servers have it: "Gitea 1.27 and later", "Gitea's
// alone", "Forgejo's alone".
func (g Gate) Has() string {
	switch {
	case g.Gitea == Never && g.Forgejo == Never:
		return "no release"
	case g.Gitea == Never:
		return "Forgejo's alone"
	case g.Forgejo == Never && g.Gitea == Always:
		return "Gitea's alone"
	}
	var parts []string
	if g.Gitea != Always {
		parts = append(parts, "Gitea "+string(g.Gitea)+" and later")
	}
	if g.Forgejo != Always && g.Forgejo != Never {
		parts = append(parts, "Forgejo "+string(g.Forgejo)+" and later")
	}
	if g.Forgejo == Never {
		parts = append(parts, "not Forgejo")
	}
	return strings.Join(parts, "; ")
}

// Lacks tells whether the server lacks g. A server of unknown flavor (an
// unstamped version) lacks nothing: it is not judged, and what it does
// with a write tells.
func (s Server) Lacks(g Gate) bool {
	if s.Flavor == "" {
		return false
	}
	switch since := g.since(s.Flavor); since {
	case Always:
		return false
	case Never:
		return true
	default:
		return versionBefore(s.SemVer, string(since))
	}
}

// Offers tells that the server is known to have g: unlike Lacks, a server
// of unknown flavor or version (a development build) does not count as
// having it, for a call that is only worth making where it answers.
func (s Server) Offers(g Gate) bool {
	return s.Flavor != "" && s.SemVer != "" && !s.Lacks(g)
}

// LacksFields are the gates of the fields spec (a pointer to a spec type
// that fieldGates names, or the value) sets that the server lacks: a
// pointer, list or map set (also to false or []), or another value not
// its zero.
func (s Server) LacksFields(spec any) []Gate {
	v := reflect.Indirect(reflect.ValueOf(spec))
	var out []Gate
	for _, g := range FieldGates(v.Type().Name()) {
		f, ok := fieldByJSON(v, g.Field)
		if !ok {
			panic(fmt.Sprintf("forge: gate of %s.%s names no field", g.In, g.Field))
		}
		if !f.IsZero() && s.Lacks(g) {
			out = append(out, g)
		}
	}
	return out
}

// fieldByJSON is the field of struct v whose JSON name is name.
func fieldByJSON(v reflect.Value, name string) (reflect.Value, bool) {
	t := v.Type()
	for i := range t.NumField() {
		if json, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ","); json == name {
			return v.Field(i), true
		}
	}
	return reflect.Value{}, false
}

// Unsupported says what of gates the server lacks and which servers have
// each: "enableBypassAllowlist, bypassAllowlistTeams (Gitea 1.27 and
// later) not supported by gitea 1.26.4". Gates are grouped by what has
// them, in the order given.
func (s Server) Unsupported(gates []Gate) string {
	var order []string
	names := map[string][]string{}
	for _, g := range gates {
		has := g.Has()
		if _, ok := names[has]; !ok {
			order = append(order, has)
		}
		names[has] = append(names[has], g.Name())
	}
	parts := make([]string, len(order))
	for i, has := range order {
		parts[i] = fmt.Sprintf("%s (%s)", strings.Join(names[has], ", "), has)
	}
	return fmt.Sprintf("%s not supported by %s", strings.Join(parts, " and "), s.described())
}

// described names the server for messages: flavor and version as reported.
func (s Server) described() string {
	if s.Flavor == "" {
		return "the forge (version " + s.ReportedVersion() + ")"
	}
	return s.Flavor + " " + s.Version
}

// versionBefore tells whether semver is a release before since
// (major.minor): "1.26.4" is before "1.27"; a pre-release of 1.27 is not.
func versionBefore(semver, since string) bool {
	var major, minor, wantMajor, wantMinor int
	_, _ = fmt.Sscanf(semver, "%d.%d", &major, &minor)
	_, _ = fmt.Sscanf(since, "%d.%d", &wantMajor, &wantMinor)
	return major < wantMajor || (major == wantMajor && minor < wantMinor)
}
