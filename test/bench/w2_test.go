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

package bench

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	forgev1 "github.com/forgeops/forge-operator/api/v1alpha1"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/testenv"
)

// governed is the W2 shape of the scale issue: organizations governed
// whole, each with its teams, its repositories' settings and topics, one
// branch protection set and one label set over its repositories, and Actions
// secrets and variables in every repository.
type governed struct {
	orgs, teamsPerOrg, membersPerTeam, reposPerOrg, valuesPerRepo int
}

// W2: 10 organizations, each with 5 teams of 5 members, 20 repositories,
// one branch protection set (2 rules), one label set (3 labels), and 2
// secrets and 2 variables per repository: 1,080 objects.
var (
	w2      = governed{orgs: 10, teamsPerOrg: 5, membersPerTeam: 5, reposPerOrg: 20, valuesPerRepo: 2}
	w2Small = governed{orgs: 1, teamsPerOrg: 5, membersPerTeam: 5, reposPerOrg: 20, valuesPerRepo: 2}
)

// w2Labels and w2Rules are what each organization's sets hold.
var (
	w2Labels = []forgev1.LabelSetLabel{
		{Name: "kind/bug", Color: "#d73a4a", Exclusive: ptr(true)},
		{Name: "kind/feature", Color: "#a2eeef", Exclusive: ptr(true)},
		{Name: "good first issue", Color: "#7057ff", Description: ptr("a small change to start with")},
	}
	w2Rules = []forgev1.BranchProtectionRule{
		{RuleName: "main", RequiredApprovals: ptr(int64(1)), BlockOnRejectedReviews: ptr(true)},
		{RuleName: "release/*", EnablePush: ptr(false), RequireSignedCommits: ptr(true)},
	}
)

func (w governed) repos() int { return w.orgs * w.reposPerOrg }

// kinds are W2's objects by the kind of forge route that serves them; a
// set counts per repository it covers.
func (w governed) kinds() []routeKind {
	return []routeKind{
		{kind: "forge", resource: "Forge", objects: 1},
		{kind: "orgs", resource: "Organization", objects: w.orgs},
		{kind: "teams", resource: "Team", objects: w.orgs * w.teamsPerOrg},
		{kind: "repos", resource: "Repository", objects: w.repos()},
		{kind: "branch_protections", resource: "BranchProtectionSet", objects: w.repos(), sets: w.orgs},
		{kind: "labels", resource: "LabelSet", objects: w.repos(), sets: w.orgs},
		{kind: "actions/secrets", resource: "ActionsSecret", objects: w.repos() * w.valuesPerRepo},
		{kind: "actions/variables", resource: "ActionsVariable", objects: w.repos() * w.valuesPerRepo},
	}
}

func (w governed) objects() int {
	return w.orgs*(1+w.teamsPerOrg+w.reposPerOrg+1+1) + 2*w.repos()*w.valuesPerRepo
}

// BenchmarkW2 applies W2, the governed organization, at once to the
// manager running against the fake forge (5 ms added to every call), at the
// Forge's default rate limit and at qps 100. What users meet is seeded on
// the forge before the manager starts: the organizations, their
// repositories (with the forge's default settings, no topics) and the
// teams' members as users; the operator adopts the organizations and the
// repositories (one settings PATCH and one topics PUT each) and creates
// the teams, branch protection rules, labels, and Actions secrets and
// variables. Printed, never asserted: W1's figures, then the same figures
// per kind of forge route (calls per object to converge, reads per object
// per sync interval at rest; the sets per repository they cover).
// W2_SIZES=small runs one organization (W2/10) instead.
func BenchmarkW2(b *testing.B) {
	name, w := "W2", w2
	if os.Getenv("W2_SIZES") == "small" {
		name, w = "W2/10", w2Small
	}
	env, cfg, err := testenv.Start()
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = env.Stop() }()
	for _, qps := range []float64{0, 100} {
		label := name + "/qps=default"
		if qps > 0 {
			label = fmt.Sprintf("%s/qps=%g", name, qps)
		}
		b.Run(label, func(b *testing.B) {
			for b.Loop() {
				runW2(b, cfg, w, qps)
			}
		})
	}
}

func runW2(b *testing.B, cfg *rest.Config, w governed, qps float64) {
	run := newRun(b, cfg, qps, w1Sync, func(fake *fakeforge.Server) {
		for m := range w.teamsPerOrg * w.membersPerTeam {
			fake.AddUser(fmt.Sprintf("user-%02d", m))
		}
		for o := range w.orgs {
			org := fmt.Sprintf("org-%02d", o)
			if _, err := fake.CreateOrg(org); err != nil {
				b.Fatal(err)
			}
			for r := range w.reposPerOrg {
				if err := fake.CreateRepo(org, fmt.Sprintf("repo-%02d", r)); err != nil {
					b.Fatal(err)
				}
			}
		}
	})
	defer run.stop()
	spec, apply, ns := run.spec, run.apply, run.ns
	values := map[string]string{}
	for i := range w.valuesPerRepo {
		values[fmt.Sprintf("v%d", i)] = fmt.Sprintf("secret-value-%d", i)
	}
	apply(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "ci"}, StringData: values})
	for o := range w.orgs {
		org := fmt.Sprintf("org-%02d", o)
		apply(&forgev1.Organization{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: org},
			Spec: forgev1.OrganizationSpec{ManagedSpec: spec, Description: ptr("governed by W2")}})
		for t := range w.teamsPerOrg {
			team := &forgev1.Team{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("%s-team-%d", org, t)},
				Spec: forgev1.TeamSpec{ManagedSpec: spec, Organization: forgev1.OwnerName(org),
					Name: ptr(forgev1.TeamName(fmt.Sprintf("team-%d", t))), Units: &forgev1.TeamUnits{Code: "write", Issues: "read"},
					Repositories: []forgev1.RepoName{forgev1.RepoName(fmt.Sprintf("repo-%02d", t))}}}
			for m := range w.membersPerTeam {
				team.Spec.Members = append(team.Spec.Members, forgev1.OwnerName(fmt.Sprintf("user-%02d", t*w.membersPerTeam+m)))
			}
			apply(team)
		}
		for r := range w.reposPerOrg {
			repo := fmt.Sprintf("repo-%02d", r)
			apply(&forgev1.Repository{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: org + "-" + repo},
				Spec: forgev1.RepositorySpec{ManagedSpec: spec, Owner: forgev1.OwnerName(org), Name: ptr(forgev1.RepoName(repo)),
					Description: ptr("governed by W2"), Website: ptr("https://example.com/" + repo),
					HasWiki: ptr(false), HasProjects: ptr(false), AllowMergeCommits: ptr(false),
					DefaultMergeStyle: ptr("squash"), DefaultDeleteBranchAfterMerge: ptr(true),
					Topics: []forgev1.Topic{"go", "service", forgev1.Topic(org)}}})
			scope := forgev1.ActionsScope{Repository: ptr(forgev1.RepositoryName(org + "/" + repo))}
			for i := range w.valuesPerRepo {
				name := fmt.Sprintf("%s-%s-value-%d", org, repo, i)
				s := scope
				s.Name = ptr(forgev1.ActionsName(fmt.Sprintf("VALUE_%d", i)))
				apply(&forgev1.ActionsSecret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
					Spec: forgev1.ActionsSecretSpec{ManagedSpec: spec, ActionsScope: s,
						ValueFrom: forgev1.ActionsSecretValueFrom{SecretKeyRef: forgev1.SecretKeySelector{Name: "ci", Key: fmt.Sprintf("v%d", i)}}}})
				apply(&forgev1.ActionsVariable{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
					Spec: forgev1.ActionsVariableSpec{ManagedSpec: spec, ActionsScope: s, Value: ptr(fmt.Sprintf("value %d", i))}})
			}
		}
		repos := forgev1.RepositorySelector{Organization: ptr(forgev1.OwnerName(org))}
		apply(&forgev1.BranchProtectionSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: org + "-protect"},
			Spec: forgev1.BranchProtectionSetSpec{ManagedSpec: spec, Repositories: repos, Rules: w2Rules}})
		apply(&forgev1.LabelSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: org + "-labels"},
			Spec: forgev1.LabelSetSpec{ManagedSpec: spec, Repositories: repos, Labels: w2Labels}})
	}
	rec := run.converge(w.objects())
	printKinds(w.kinds(), rec, run.qps)
}

// routeKind is a kind of forge route and the objects it serves: sets, when
// not zero, is how many set resources cover the objects (repositories).
type routeKind struct {
	kind, resource string
	objects, sets  int
}

// kindOf is the kind of a call's route: the collection it addresses, from
// "/repos/{owner}/{repo}/labels/{id}" labels, "/orgs/{org}/teams" and
// "/teams/{id}/members/{user}" teams, "/repos/{owner}/{repo}/topics" repos
// (a Repository's own), "/orgs/{org}/repos" repos too (the organization's
// listing, which the sets read as well), "/version" and "/user" forge.
func kindOf(c call) string {
	p := strings.Split(strings.TrimPrefix(c.path, "/"), "/")
	var rest []string
	switch {
	case p[0] == "repos" && len(p) >= 3:
		rest = p[3:]
		if len(rest) > 0 && (rest[0] == "topics" || rest[0] == "collaborators") {
			return "repos"
		}
		if len(rest) == 0 {
			return "repos"
		}
	case p[0] == "orgs" && len(p) >= 2:
		rest = p[2:]
		if len(rest) == 0 {
			return "orgs"
		}
	case p[0] == "teams":
		return "teams"
	case p[0] == "user" && len(p) > 1 && p[1] == "orgs":
		return "orgs"
	case p[0] == "version" || p[0] == "user":
		return "forge"
	default:
		return p[0]
	}
	if rest[0] == "actions" && len(rest) > 1 {
		return "actions/" + rest[1]
	}
	return rest[0]
}

// printKinds prints W1's figures per kind of forge route: calls per object
// to converge (reads and writes), and at rest reads per object per sync
// interval, the paths read (one per scope) and the most reads of one path.
// Before them, what bounds the run at the Forge's rate limit: the forge
// writes to converge (a set writes many), and the calls per second at rest.
func printKinds(kinds []routeKind, rec recorded, qps float64) {
	allWrites := len(rec.calls) - reads(rec.calls)
	fmt.Printf("  forge writes to converge: %d (rate floor at the writes: %.1fs); at rest: %.1f forge calls per second (Forge qps %s)\n",
		allWrites, float64(allWrites)/effectiveQPS(qps), float64(len(rec.rest))/(rec.intervals*rec.interval.Seconds()), qpsText(qps))
	type tally struct {
		reads, writes, restReads, restWrites int
		restPaths                            map[string]int
	}
	by := map[string]*tally{}
	get := func(k string) *tally {
		if by[k] == nil {
			by[k] = &tally{restPaths: map[string]int{}}
		}
		return by[k]
	}
	for _, c := range rec.calls {
		t := get(kindOf(c))
		if c.method == http.MethodGet {
			t.reads++
		} else {
			t.writes++
		}
	}
	for _, c := range rec.rest {
		t := get(kindOf(c))
		if c.method == http.MethodGet {
			t.restReads++
			t.restPaths[c.path]++
		} else {
			t.restWrites++
		}
	}
	known := map[string]bool{}
	for _, k := range kinds {
		known[k.kind] = true
	}
	for k := range by {
		if !known[k] {
			kinds = append(kinds, routeKind{kind: k, resource: "?"})
		}
	}
	fmt.Printf("  per kind of forge route (/orgs/{org}/repos counts as repos; the sets per repository):\n")
	for _, k := range kinds {
		t := get(k.kind)
		unit := fmt.Sprintf("%d %s", k.objects, k.resource)
		if k.sets > 0 {
			unit = fmt.Sprintf("%d %s, %d repositories", k.sets, k.resource, k.objects)
		}
		most, mostPath := 0, "none"
		for p, n := range t.restPaths {
			if n > most || n == most && p < mostPath {
				most, mostPath = n, p
			}
		}
		per := func(v int) string {
			if k.objects == 0 {
				return "-"
			}
			return fmt.Sprintf("%.2f", float64(v)/float64(k.objects))
		}
		perInterval := "-"
		if k.objects > 0 {
			perInterval = fmt.Sprintf("%.3f", float64(t.restReads)/float64(k.objects)/rec.intervals)
		}
		fmt.Printf("    %-18s %-44s to converge %5d calls (%4d reads, %4d writes): %s per object (%s reads, %s writes)\n",
			k.kind, "("+unit+")", t.reads+t.writes, t.reads, t.writes, per(t.reads+t.writes), per(t.reads), per(t.writes))
		fmt.Printf("    %-63s at rest %s reads per object per interval; %d paths read, %.2f reads per path per interval (most: %d in %.1f intervals, %s); %d writes\n",
			"", perInterval, len(t.restPaths), perPath(t.restReads, len(t.restPaths), rec.intervals), most, rec.intervals, mostPath, t.restWrites)
	}
}

func perPath(reads, paths int, intervals float64) float64 {
	if paths == 0 {
		return 0
	}
	return float64(reads) / float64(paths) / intervals
}
