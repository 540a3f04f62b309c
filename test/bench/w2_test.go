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
	"context"
	"fmt"
	"maps"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"

	forgev1 "github.com/forgeops/forge-operator/api/v1alpha1"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/testenv"
)

// governed is the W2 shape of the scale issue: organizations
// governed whole, each with its teams, its repositories' settings and
// topics, one branch protection set, one label set and one repository set
// over its repositories but the sandboxes, and Actions secrets and
// variables, a tag protection and a generated deploy key in every
// repository.
type governed struct {
	orgs, teamsPerOrg, membersPerTeam int
	// reposPerOrg are named repo-00, repo-01, ...; sandboxesPerOrg
	// sandbox-0, sandbox-1, ..., which the sets exclude.
	reposPerOrg, sandboxesPerOrg int
	valuesPerRepo                int
	// newEvery: a repository is new, not on the forge before the apply
	// (the operator creates it), when its index over all organizations'
	// repositories is divisible by newEvery.
	newEvery int
	// repositorySet: each organization has a RepositorySet over the
	// repositories the other sets cover (w2Settings, w2Topic, and the
	// organization's teams given access); its Teams then leave their
	// repositories to it. W2_REPOSITORYSET=off runs W2 without it, each
	// Team listing one repository, as W2 was before the kind: the run to
	// compare with for what the set adds.
	repositorySet bool
}

// W2: 8 organizations, each with 2 teams of 5 members, 25 repositories
// (22 and 3 sandboxes; 50 of the 200 new), one branch protection set (2
// rules), one label set (3 labels) and one repository set (4 settings, a
// topic, the 2 teams given access) over the 22, and 1 secret, 1 variable,
// 1 tag protection (v*, the Owners team) and 1 deploy key (an ed25519
// pair the operator generates into a Secret, as a Flux or Argo CD setup
// asks) per repository: 1,048 objects.
var (
	w2      = governed{orgs: 8, teamsPerOrg: 2, membersPerTeam: 5, reposPerOrg: 22, sandboxesPerOrg: 3, valuesPerRepo: 1, newEvery: 4, repositorySet: true}
	w2Small = governed{orgs: 1, teamsPerOrg: 2, membersPerTeam: 5, reposPerOrg: 22, sandboxesPerOrg: 3, valuesPerRepo: 1, newEvery: 4, repositorySet: true}
)

// w2Settings and w2Topic are what each organization's RepositorySet
// writes. Its Repositories set three of the settings and list their topics
// themselves, so they hold those (most specific wins, per field): the set
// writes allowSquashMerge and its team access, and compares the rest,
// which costs it the same reads.
var (
	w2Settings = forgev1.RepositorySettings{HasWiki: ptr(false), AllowSquashMerge: ptr(true),
		DefaultMergeStyle: ptr("squash"), DefaultDeleteBranchAfterMerge: ptr(true)}
	w2Topic = forgev1.Topic("governed")
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

// w2Sandboxes is what the sets exclude.
const w2Sandboxes = "sandbox-*"

func (w governed) perOrg() int { return w.reposPerOrg + w.sandboxesPerOrg }

func (w governed) repos() int { return w.orgs * w.perOrg() }

// repoName is the name of an organization's repository r: the sandboxes last.
func (w governed) repoName(r int) string {
	if r < w.reposPerOrg {
		return fmt.Sprintf("repo-%02d", r)
	}
	return fmt.Sprintf("sandbox-%d", r-w.reposPerOrg)
}

// isNew is whether repository r of organization o is new (not seeded).
func (w governed) isNew(o, r int) bool { return (o*w.perOrg()+r)%w.newEvery == 0 }

func (w governed) newRepos() int {
	n := 0
	for o := range w.orgs {
		for r := range w.perOrg() {
			if w.isNew(o, r) {
				n++
			}
		}
	}
	return n
}

// kinds are W2's objects by the kind of forge route that serves them; a
// set counts per repository it covers.
func (w governed) kinds() []routeKind {
	covered := w.orgs * w.reposPerOrg
	return []routeKind{
		{kind: "forge", resource: "Forge", objects: 1},
		{kind: "orgs", resource: "Organization", objects: w.orgs},
		{kind: "teams", resource: "Team", objects: w.orgs * w.teamsPerOrg},
		w.teamRepos(),
		{kind: "repos", resource: "Repository", objects: w.repos()},
		{kind: "branch_protections", resource: "BranchProtectionSet", objects: covered, sets: w.orgs},
		{kind: "labels", resource: "LabelSet", objects: covered, sets: w.orgs},
		{kind: "actions/secrets", resource: "ActionsSecret", objects: w.repos() * w.valuesPerRepo},
		{kind: "actions/variables", resource: "ActionsVariable", objects: w.repos() * w.valuesPerRepo},
		{kind: "tag_protections", resource: "TagProtection", objects: w.repos()},
		{kind: "keys", resource: "DeployKey", objects: w.repos()},
	}
}

// resources are W2's objects by kind of resource, in the order the issue
// lists them, and how many of each.
func (w governed) resources() []kindCount {
	return []kindCount{
		{"Repository", w.repos()},
		{"Team", w.orgs * w.teamsPerOrg},
		{"Organization", w.orgs},
		{"BranchProtectionSet", w.orgs},
		{"LabelSet", w.orgs},
		{"RepositorySet", w.sets()},
		{"ActionsSecret", w.repos() * w.valuesPerRepo},
		{"ActionsVariable", w.repos() * w.valuesPerRepo},
		{"TagProtection", w.repos()},
		{"DeployKey", w.repos()},
	}
}

type kindCount struct {
	kind    string
	objects int
}

func (w governed) objects() int {
	return w.orgs*(1+w.teamsPerOrg+w.perOrg()+1+1) + w.sets() + 2*w.repos()*w.valuesPerRepo + 2*w.repos()
}

// sets is how many RepositorySets W2 has: one per organization, or none.
func (w governed) sets() int {
	if !w.repositorySet {
		return 0
	}
	return w.orgs
}

// teamRepos is the route kind of a team's repository access
// (/teams/{id}/repos...): the RepositorySets' over the repositories they
// cover, or without them the Teams' (one repository each).
func (w governed) teamRepos() routeKind {
	if !w.repositorySet {
		return routeKind{kind: "teams/repos", resource: "Team repositories", objects: w.orgs * w.teamsPerOrg}
	}
	return routeKind{kind: "teams/repos", resource: "RepositorySet", objects: w.orgs * w.reposPerOrg, sets: w.orgs}
}

// BenchmarkW2 applies W2, the governed organization, at once to the
// manager running against the fake forge (5 ms added to every call), at the
// Forge's default rate limit (qps 10), with the manager's sync interval at
// its default (10m) and at 30s. What users meet is seeded on the forge
// before the manager starts: the organizations, three in four of their
// repositories (with the forge's default settings, no topics) and the
// teams' members as users; the operator adopts the organizations and those
// repositories (one settings PATCH and one topics PUT each), creates the
// others, and creates the teams, branch protection rules, labels, tag
// protections, deploy keys (and their Secrets), and Actions secrets and variables. Printed, never asserted: W1's figures, the
// same per kind of forge route (calls per object to converge, reads per
// object per sync interval at rest; the sets per repository they cover),
// and what a scale review asks: when each kind was all Ready, the passes per
// object of each kind's controller to converge and at rest (the manager's
// controller_runtime_reconcile_total), the uncached Secret reads per
// ActionsSecret, the forge reads per path per interval at rest, and how
// many repositories lacked a set's labels or rules when all were Ready.
//
// W2_SIZES=small runs one organization (W2/small) instead. The at-rest
// phase watches one interval at 10m and three at 30s; W2_REST (or W1_REST)
// sets it. The wait for Ready ends after 30 minutes (W2_LIMIT sets it);
// a run not Ready by then prints the figures it reached.
func BenchmarkW2(b *testing.B) {
	name, w := "W2", w2
	if os.Getenv("W2_SIZES") == "small" {
		name, w = "W2/small", w2Small
	}
	if os.Getenv("W2_REPOSITORYSET") == "off" {
		w.repositorySet = false
	}
	limit := 30 * time.Minute
	if v, err := time.ParseDuration(os.Getenv("W2_LIMIT")); err == nil && v > 0 {
		limit = v
	}
	env, cfg, err := testenv.Start()
	if err != nil {
		b.Fatal(err)
	}
	defer func() { _ = env.Stop() }()
	for _, interval := range []time.Duration{10 * time.Minute, 30 * time.Second} {
		b.Run(fmt.Sprintf("%s/interval=%s", name, shortDuration(interval)), func(b *testing.B) {
			for b.Loop() {
				runW2(b, cfg, w, interval, limit)
			}
		})
	}
}

// shortDuration is d as a flag takes it, without trailing zero units: 10m, 30s.
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

func runW2(b *testing.B, cfg *rest.Config, w governed, interval, limit time.Duration) {
	run := newRun(b, cfg, 0, interval, func(fake *fakeforge.Server) {
		for m := range w.teamsPerOrg * w.membersPerTeam {
			fake.AddUser(fmt.Sprintf("user-%02d", m))
		}
		for o := range w.orgs {
			org := fmt.Sprintf("org-%02d", o)
			if _, err := fake.CreateOrg(org); err != nil {
				b.Fatal(err)
			}
			for r := range w.perOrg() {
				if w.isNew(o, r) {
					continue
				}
				if err := fake.CreateRepo(org, w.repoName(r)); err != nil {
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
					Name: ptr(forgev1.TeamName(fmt.Sprintf("team-%d", t))), Units: &forgev1.TeamUnits{Code: "write", Issues: "read"}}}
			if !w.repositorySet {
				// With the set, it gives the access: a Team listing its
				// repositories holds them, and the set would list the others
				// as a Conflict.
				team.Spec.Repositories = []forgev1.RepoName{forgev1.RepoName(w.repoName(t))}
			}
			for m := range w.membersPerTeam {
				team.Spec.Members = append(team.Spec.Members, forgev1.OwnerName(fmt.Sprintf("user-%02d", t*w.membersPerTeam+m)))
			}
			apply(team)
		}
		for r := range w.perOrg() {
			repo := w.repoName(r)
			apply(&forgev1.Repository{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: org + "-" + repo},
				Spec: forgev1.RepositorySpec{ManagedSpec: spec, Owner: forgev1.OwnerName(org), Name: ptr(forgev1.RepoName(repo)),
					RepositorySettings: forgev1.RepositorySettings{Description: ptr("governed by W2"), Website: ptr("https://example.com/" + repo),
						HasWiki: ptr(false), HasProjects: ptr(false), AllowMergeCommits: ptr(false),
						DefaultMergeStyle: ptr("squash"), DefaultDeleteBranchAfterMerge: ptr(true)},
					Topics: []forgev1.Topic{"go", "service", forgev1.Topic(org)}}})
			// The Owners team has every repository: the forge shows it at once.
			apply(&forgev1.TagProtection{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: org + "-" + repo + "-tags"},
				Spec: forgev1.TagProtectionSpec{ManagedSpec: spec, Repository: forgev1.RepositoryName(org + "/" + repo),
					NamePattern: "v*", WhitelistTeams: []forgev1.TeamName{"Owners"}}})
			apply(&forgev1.DeployKey{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: org + "-" + repo + "-flux"},
				Spec: forgev1.DeployKeySpec{ManagedSpec: spec, Repository: forgev1.RepositoryName(org + "/" + repo),
					Generate: &forgev1.DeployKeyGenerate{SecretName: org + "-" + repo + "-flux"}}})
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
		repos := forgev1.RepositorySelector{Organization: ptr(forgev1.OwnerName(org)), Exclude: []forgev1.RepositoryGlob{w2Sandboxes}}
		apply(&forgev1.BranchProtectionSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: org + "-protect"},
			Spec: forgev1.BranchProtectionSetSpec{ManagedSpec: spec, Repositories: repos, Rules: w2Rules}})
		apply(&forgev1.LabelSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: org + "-labels"},
			Spec: forgev1.LabelSetSpec{ManagedSpec: spec, Repositories: repos, Labels: w2Labels}})
		if w.repositorySet {
			set := &forgev1.RepositorySet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: org + "-policy"},
				Spec: forgev1.RepositorySetSpec{ManagedSpec: spec, Repositories: repos, Settings: new(w2Settings),
					Topics: []forgev1.Topic{w2Topic}}}
			for t := range w.teamsPerOrg {
				set.Spec.Teams = append(set.Spec.Teams, forgev1.TeamName(fmt.Sprintf("team-%d", t)))
			}
			apply(set)
		}
	}

	// What the sets had put on the forge, and the passes the manager had
	// made, when all were Ready (or the wait ended) and after the rest.
	var (
		coverReady, coverRest         []setCoverage
		passesReady, passesRest       map[string]map[string]float64
		passesReadyErr, passesRestErr error
	)
	rec := run.convergeWith(w.objects(), convergeOptions{limit: limit, printOnTimeout: true, restEnv: []string{"W2_REST", "W1_REST"},
		atReady: func() {
			coverReady = w.coverage(run.fake)
			passesReady, passesReadyErr = run.proc.reconciles()
		},
		atRest: func() {
			coverRest = w.coverage(run.fake)
			passesRest, passesRestErr = run.proc.reconciles()
		}})
	printKinds(w.kinds(), rec, run.qps)

	fmt.Printf("  W2: %d repositories, %d of them new (created by the operator), %d in the sets (the %d sandboxes excluded); %d RepositorySets\n",
		w.repos(), w.newRepos(), w.orgs*w.reposPerOrg, w.orgs*w.sandboxesPerOrg, w.sets())
	printReadyByKind(w.resources(), rec)
	if passesReadyErr != nil || passesRestErr != nil {
		fmt.Printf("  passes: metrics not read: %v %v\n", passesReadyErr, passesRestErr)
	} else {
		printPasses(w.resources(), passesReady, passesRest, rec)
	}
	secrets := w.repos() * w.valuesPerRepo
	fmt.Printf("  uncached Secret GETs: to converge %d (%.2f per ActionsSecret); at rest %d (%.3f per ActionsSecret per interval)\n",
		rec.kube["GET secret (uncached)"], float64(rec.kube["GET secret (uncached)"])/float64(secrets),
		rec.restKube["GET secret (uncached)"], float64(rec.restKube["GET secret (uncached)"])/float64(secrets)/rec.intervals)
	paths := map[string]bool{}
	for _, c := range rec.rest {
		if c.method == http.MethodGet {
			paths[c.path] = true
		}
	}
	fmt.Printf("  at rest over %.2f intervals: %d distinct forge paths read (scopes), %d reads, %.2f reads per path per interval\n",
		rec.intervals, len(paths), reads(rec.rest), perPath(reads(rec.rest), len(paths), rec.intervals))
	when := "at Ready"
	if !rec.readiness.done {
		when = "when the wait ended (not all Ready)"
	}
	printCoverage(when, coverReady, rec.readiness)
	printCoverage("after the rest", coverRest, readiness{})
	w.printRepositorySet(rec)
	// What the Forge says of its drift load, as of its last check.
	var fg forgev1.Forge
	if err := run.k8s.Get(context.Background(), types.NamespacedName{Namespace: run.ns, Name: "gitea"}, &fg); err == nil {
		fmt.Printf("  the Forge after the rest: status.driftScopes %d, status.driftCheckIntervals %d\n",
			fg.Status.DriftScopes, fg.Status.DriftCheckIntervals)
	}
}

// setCoverage is what one organization's sets had put on the forge: of
// the repositories they cover, how many lacked one of the set's labels or
// rules (missing: not on the forge at all), and how many sandboxes had one.
type setCoverage struct {
	org                                  string
	covered, missingLabels, missingRules int
	absent, sandboxLabels, sandboxRules  int
	// lacking names the repositories missing a label or a rule.
	lacking []string
}

// coverage reads the fake forge's state (no call to its API, none
// recorded) for each organization's sets.
func (w governed) coverage(fake *fakeforge.Server) []setCoverage {
	var out []setCoverage
	for o := range w.orgs {
		c := setCoverage{org: fmt.Sprintf("org-%02d", o)}
		for r := range w.perOrg() {
			repo := w.repoName(r)
			labels := 0
			for _, l := range fake.Labels(forge.RepoScope(c.org, repo)) {
				if slices.ContainsFunc(w2Labels, func(want forgev1.LabelSetLabel) bool { return string(want.Name) == l.Name }) {
					labels++
				}
			}
			rules := 0
			for _, p := range fake.BranchProtections(c.org, repo) {
				if slices.ContainsFunc(w2Rules, func(want forgev1.BranchProtectionRule) bool { return string(want.RuleName) == p.RuleName }) {
					rules++
				}
			}
			if r >= w.reposPerOrg {
				c.sandboxLabels += min(labels, 1)
				c.sandboxRules += min(rules, 1)
				continue
			}
			hasLabels, hasRules := labels == len(w2Labels), rules == len(w2Rules)
			c.covered++
			if _, ok := fake.Repo(c.org, repo); !ok {
				c.absent++
			}
			if !hasLabels {
				c.missingLabels++
			}
			if !hasRules {
				c.missingRules++
			}
			if !hasLabels || !hasRules {
				c.lacking = append(c.lacking, repo)
			}
		}
		out = append(out, c)
	}
	return out
}

// printCoverage prints how many repositories lacked their sets' labels or
// rules when: in all, and per organization that lacked any; with the sets'
// Ready counts when seen has them.
func printCoverage(when string, cover []setCoverage, seen readiness) {
	var total setCoverage
	for _, c := range cover {
		total.covered += c.covered
		total.missingLabels += c.missingLabels
		total.missingRules += c.missingRules
		total.absent += c.absent
		total.sandboxLabels += c.sandboxLabels
		total.sandboxRules += c.sandboxRules
	}
	sets := ""
	if ls, bs := seen.kinds["LabelSet"], seen.kinds["BranchProtectionSet"]; ls != nil && bs != nil {
		sets = fmt.Sprintf(" (LabelSets Ready: %d of %d, BranchProtectionSets: %d of %d)", ls.ready, ls.objects, bs.ready, bs.objects)
	}
	fmt.Printf("  %s: %d repositories missing set labels, %d missing rules, of %d in the sets (%d not on the forge yet); sandboxes with a set's label: %d, rule: %d%s\n",
		when, total.missingLabels, total.missingRules, total.covered, total.absent, total.sandboxLabels, total.sandboxRules, sets)
	for _, c := range cover {
		if c.missingLabels+c.missingRules+c.sandboxLabels+c.sandboxRules > 0 {
			fmt.Printf("    %s: %d of %d missing labels, %d missing rules (%d not on the forge); sandboxes with a label %d, a rule %d; lacking: %s\n",
				c.org, c.missingLabels, c.covered, c.missingRules, c.absent, c.sandboxLabels, c.sandboxRules, strings.Join(c.lacking, " "))
		}
	}
}

// printReadyByKind prints when all objects of each kind were first Ready.
func printReadyByKind(kinds []kindCount, rec recorded) {
	var parts []string
	for _, k := range kinds {
		seen := rec.readiness.kinds[k.kind]
		switch {
		case seen == nil:
			parts = append(parts, fmt.Sprintf("%s none seen", k.kind))
		case seen.all:
			parts = append(parts, fmt.Sprintf("%s %.1fs", k.kind, seen.allAt.Seconds()))
		default:
			parts = append(parts, fmt.Sprintf("%s never (%d of %d Ready)", k.kind, seen.ready, seen.objects))
		}
	}
	end := fmt.Sprintf("all Ready at %.1fs", rec.ready.Seconds())
	if !rec.readiness.done {
		end = fmt.Sprintf("the wait ended at %.1fs, not all Ready", rec.ready.Seconds())
	}
	fmt.Printf("  all of a kind first Ready, after the apply began (%s): %s\n", end, strings.Join(parts, ", "))
}

// printPasses prints the passes per object of each kind's controller (its
// controller_runtime_reconcile_total: the lower-case kind) to converge
// (at the end of the wait for Ready) and during the rest (per interval),
// with the passes that ended in an error or asked to be repeated at once
// (result "requeue"; a pass that schedules its next drift check is
// "requeue_after", nearly every pass here).
func printPasses(kinds []kindCount, ready, rest map[string]map[string]float64, rec recorded) {
	fmt.Printf("  passes (controller_runtime_reconcile_total) per object, to converge and per interval at rest:\n")
	sum := func(m map[string]float64) float64 {
		t := 0.0
		for _, v := range m {
			t += v
		}
		return t
	}
	for _, k := range append(kinds, kindCount{"Forge", 1}) {
		c := strings.ToLower(k.kind)
		converge, atRest := sum(ready[c]), sum(rest[c])-sum(ready[c])
		fmt.Printf("    %-20s %4d objects: to converge %6.2f per object (%5.0f passes; %4.0f errors, %4.0f immediate requeues); at rest %6.3f per object per interval (%5.0f passes; %4.0f errors)\n",
			k.kind, k.objects, converge/float64(k.objects), converge, ready[c]["error"], ready[c]["requeue"],
			atRest/float64(k.objects)/rec.intervals, atRest, rest[c]["error"]-ready[c]["error"])
		r := "ran/" + c
		ran, ranRest := sum(ready[r]), sum(rest[r])-sum(ready[r])
		fmt.Printf("    %-20s %4s          of them ran %6.2f per object (ready %.0f, waiting %.0f, stalled %.0f, idle %.0f, on a later turn %.0f; the rest waited for a worker); at rest %6.3f per object per interval\n",
			"", "", ran/float64(k.objects), ready[r]["ready"], ready[r]["waiting"], ready[r]["stalled"], ready[r]["idle"], ready[r]["turn"],
			ranRest/float64(k.objects)/rec.intervals)
	}
}

// routeKind is a kind of forge route and the objects it serves: sets, when
// not zero, is how many set resources cover the objects (repositories).
type routeKind struct {
	kind, resource string
	objects, sets  int
}

// kindOf is the kind of a call's route: the collection it addresses, from
// "/repos/{owner}/{repo}/labels/{id}" labels, "/orgs/{org}/teams" and
// "/teams/{id}/members/{user}" teams, "/teams/{id}/repos/{org}/{repo}"
// teams/repos (a team's repository access: the RepositorySets', or the
// Teams' when they list repositories), "/repos/{owner}/{repo}/topics"
// repos (a Repository's own), "/orgs/{org}/repos" repos too (the
// organization's listing, which the sets read as well), "/version" and
// "/user" forge.
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
		if len(p) >= 3 && p[2] == "repos" {
			return "teams/repos"
		}
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

// restKind is the kind of path of a read at rest, as a RepositorySet's
// cost is judged: the listings it may share with the other kinds (the
// organization's repositories and teams), the one it may add (a team's
// repositories), and the reads per repository it must not make.
func restKind(c call) string {
	p := strings.Split(strings.TrimPrefix(c.path, "/"), "/")
	switch {
	case p[0] == "orgs" && len(p) == 3 && p[2] == "repos":
		return "organization repository listing (GET /orgs/{org}/repos)"
	case p[0] == "orgs" && len(p) == 3 && p[2] == "teams":
		return "organization team listing (GET /orgs/{org}/teams)"
	case p[0] == "teams" && len(p) == 3 && p[2] == "repos":
		return "team repository listing (GET /teams/{id}/repos)"
	case p[0] == "teams" && len(p) > 3 && p[2] == "repos":
		return "team access check of one repository (GET /teams/{id}/repos/{org}/{repo})"
	case p[0] == "repos" && len(p) == 3:
		return "repository read (GET /repos/{owner}/{repo})"
	case p[0] == "repos" && len(p) == 4 && p[3] == "topics":
		return "repository topics read (GET /repos/{owner}/{repo}/topics)"
	case p[0] == "repos" && len(p) >= 4 && p[3] == "teams":
		return "repository teams read (GET /repos/{owner}/{repo}/teams...)"
	case p[0] == "repos" && len(p) >= 4:
		return "other reads in a repository (labels, rules, keys, Actions...)"
	}
	return "other reads"
}

// printRepositorySet prints what W2's RepositorySets cost: their forge
// writes (the team access they give; the settings and topics they write
// are PATCH and PUT of a repository, counted with the Repositories') and
// Kubernetes writes per object to converge and at rest, and the reads at
// rest by kind of path, per sync interval, with every route read and
// written at rest: run with W2_REPOSITORYSET=off beside it, what the sets
// add. They may add one team repository listing per team per interval
// and nothing else: their settings and topics are compared from the
// organization's repository listing, which W2 takes already.
func (w governed) printRepositorySet(rec recorded) {
	sets := "without RepositorySets (W2_REPOSITORYSET=off; each Team lists one repository)"
	if w.repositorySet {
		sets = fmt.Sprintf("with %d RepositorySets over %d repositories, giving %d teams access", w.sets(), w.orgs*w.reposPerOrg, w.orgs*w.teamsPerOrg)
	}
	fmt.Printf("  RepositorySet, %s:\n", sets)
	access, accessRest := 0, 0
	for _, c := range rec.calls {
		if kindOf(c) == "teams/repos" && c.method != http.MethodGet {
			access++
		}
	}
	for _, c := range rec.rest {
		if kindOf(c) == "teams/repos" && c.method != http.MethodGet {
			accessRest++
		}
	}
	kube := func(m map[string]int) int {
		n := 0
		for k, v := range m {
			if strings.HasSuffix(k, " repositorysets") || strings.HasSuffix(k, " repositorysets/status") {
				n += v
			}
		}
		return n
	}
	if n := w.sets(); n > 0 {
		covered := w.orgs * w.reposPerOrg
		fmt.Printf("    to converge: %d team access writes (%.2f per repository covered; %d wanted: %d teams x %d repositories), %d Kubernetes writes of the RepositorySets (%.1f per set)\n",
			access, float64(access)/float64(covered), w.orgs*w.teamsPerOrg*w.reposPerOrg, w.teamsPerOrg, w.reposPerOrg, kube(rec.kube), float64(kube(rec.kube))/float64(n))
		fmt.Printf("    at rest: %d team access writes, %d Kubernetes writes of the RepositorySets (%.3f per set per interval)\n",
			accessRest, kube(rec.restKube), float64(kube(rec.restKube))/float64(n)/rec.intervals)
	} else {
		fmt.Printf("    to converge: %d team access writes (the Teams'); at rest %d\n", access, accessRest)
	}
	type tally struct {
		reads int
		paths map[string]bool
	}
	by := map[string]*tally{}
	for _, c := range rec.rest {
		if c.method != http.MethodGet {
			continue
		}
		k := restKind(c)
		if by[k] == nil {
			by[k] = &tally{paths: map[string]bool{}}
		}
		by[k].reads++
		by[k].paths[c.path] = true
	}
	fmt.Printf("    forge reads at rest over %.2f intervals, by kind of path (per sync interval; distinct paths):\n", rec.intervals)
	for _, k := range slices.Sorted(maps.Keys(by)) {
		fmt.Printf("      %-80s %5d (%6.2f per interval; %3d paths)\n", k, by[k].reads, float64(by[k].reads)/rec.intervals, len(by[k].paths))
	}
	routes := map[string]int{}
	for _, c := range rec.rest {
		routes[route(c)]++
	}
	fmt.Printf("    every route at rest (per sync interval):\n")
	for _, k := range slices.Sorted(maps.Keys(routes)) {
		fmt.Printf("      %-70s %5d (%6.2f per interval)\n", k, routes[k], float64(routes[k])/rec.intervals)
	}
	count := func(kind string) float64 {
		if by[kind] == nil {
			return 0
		}
		return float64(by[kind].reads) / rec.intervals
	}
	perRepo := count("repository read (GET /repos/{owner}/{repo})") + count("repository topics read (GET /repos/{owner}/{repo}/topics)") +
		count("repository teams read (GET /repos/{owner}/{repo}/teams...)") + count("team access check of one repository (GET /teams/{id}/repos/{org}/{repo})")
	fmt.Printf("    per interval at rest: %.2f organization repository listings (%d organizations), %.2f team repository listings (%d teams; a RepositorySet may add one per team), %.2f reads of one repository's settings, topics or team access, %d forge writes\n",
		count("organization repository listing (GET /orgs/{org}/repos)"), w.orgs, count("team repository listing (GET /teams/{id}/repos)"), w.orgs*w.teamsPerOrg,
		perRepo, len(rec.rest)-reads(rec.rest))
}
