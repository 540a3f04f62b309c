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

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/testenv"
)

// governed is the W2 shape of the scale issue: organizations
// governed whole, each with its teams, its repositories' settings and
// topics, one branch protection set, one label set, one repository set and
// one file set over its repositories but the sandboxes, and Actions
// secrets and variables, a tag protection and a generated deploy key in
// every repository.
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
	// fileSet: each organization has a FileSet of w2Files over the same
	// repositories, and its "main" rule lets the operator's user push
	// (the allowlist a FileSet needs on a protected branch).
	// W2_FILESET=off runs W2 without it.
	fileSet bool
	// receiver: a Receiver of every organization wakes the sets when a
	// repository is made on the forge (W2's receiver variant).
	receiver bool
}

// W2: 8 organizations, each with 2 teams of 5 members, 25 repositories
// (22 and 3 sandboxes; 50 of the 200 new), one branch protection set (2
// rules), one label set (3 labels), one repository set (4 settings, a
// topic, the 2 teams given access) and one file set (5 files) over the 22,
// and 1 secret, 1 variable, 1 tag protection (v*, the Owners team) and 1
// deploy key (an ed25519 pair the operator generates into a Secret, as a
// Flux or Argo CD setup asks) per repository: 1,056 objects.
var (
	w2 = governed{orgs: 8, teamsPerOrg: 2, membersPerTeam: 5, reposPerOrg: 22, sandboxesPerOrg: 3, valuesPerRepo: 1, newEvery: 4,
		repositorySet: true, fileSet: true}
	w2Small = governed{orgs: 1, teamsPerOrg: 2, membersPerTeam: 5, reposPerOrg: 22, sandboxesPerOrg: 3, valuesPerRepo: 1, newEvery: 4,
		repositorySet: true, fileSet: true}
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

// rules are what each organization's BranchProtectionSet holds: with a
// FileSet, its "main" rule lets login (the operator's user) push, as a
// FileSet's commits to a protected branch need (Gitea refuses them
// otherwise).
func (w governed) rules(login string) []forgev1.BranchProtectionRule {
	rules := slices.Clone(w2Rules)
	if w.fileSet {
		main := rules[0]
		main.EnablePush, main.EnablePushWhitelist = ptr(true), ptr(true)
		main.PushWhitelistUsernames = []forgev1.UserName{forgev1.UserName(login)}
		rules[0] = main
	}
	return rules
}

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
	kinds := []routeKind{
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
	if w.fileSet {
		// A branch's tree listing, and the change-files call (one commit).
		kinds = append(kinds, routeKind{kind: "git", resource: "FileSet", objects: covered, sets: w.orgs},
			routeKind{kind: "contents", resource: "FileSet", objects: covered, sets: w.orgs})
	}
	if w.receiver {
		kinds = append(kinds, routeKind{kind: "hooks", resource: "Receiver organization hooks", objects: w.orgs})
	}
	return kinds
}

// resources are W2's objects by kind of resource, in the order the issue
// lists them, and how many of each (kinds W2 has none of left out).
func (w governed) resources() []kindCount {
	all := []kindCount{
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
		{"FileSet", w.fileSets()},
		{"Receiver", w.receivers()},
	}
	return slices.DeleteFunc(all, func(k kindCount) bool { return k.objects == 0 })
}

type kindCount struct {
	kind    string
	objects int
}

func (w governed) objects() int {
	return w.orgs*(1+w.teamsPerOrg+w.perOrg()+1+1) + w.sets() + w.fileSets() + w.receivers() +
		2*w.repos()*w.valuesPerRepo + 2*w.repos()
}

// fileSets is how many FileSets W2 has: one per organization, or none.
func (w governed) fileSets() int {
	if !w.fileSet {
		return 0
	}
	return w.orgs
}

// receivers is how many Receivers W2 has: one, of every organization, in
// the receiver variant.
func (w governed) receivers() int {
	if !w.receiver {
		return 0
	}
	return 1
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
// others, and creates the teams, branch protection rules, labels, files
// (one commit per repository), tag protections, deploy keys (and their
// Secrets), and Actions secrets and variables. Printed, never asserted: W1's figures, the
// same per kind of forge route (calls per object to converge, reads per
// object per sync interval at rest; the sets per repository they cover),
// and what a scale review asks: when each kind was all Ready, the passes per
// object of each kind's controller to converge and at rest (the manager's
// controller_runtime_reconcile_total), the uncached Secret reads per
// ActionsSecret, the forge reads per path per interval at rest, and how
// many repositories lacked a set's labels or rules when all were Ready;
// what the FileSets cost (w2_fileset_test.go). Then the receiver variant,
// at 10m (w2_receiver_test.go): W2 with a Receiver, and 50 repositories
// made on the forge at once.
//
// W2_SIZES=small runs one organization (W2/small) instead. The at-rest
// phase watches one interval at 10m and three at 30s; W2_REST (or W1_REST)
// sets it. The wait for Ready ends after 30 minutes (W2_LIMIT sets it);
// a run not Ready by then prints the figures it reached.
// W2_REPOSITORYSET=off and W2_FILESET=off run W2 without those sets.
func BenchmarkW2(b *testing.B) {
	name, w := "W2", w2
	if os.Getenv("W2_SIZES") == "small" {
		name, w = "W2/small", w2Small
	}
	if os.Getenv("W2_REPOSITORYSET") == "off" {
		w.repositorySet = false
	}
	if os.Getenv("W2_FILESET") == "off" {
		w.fileSet = false
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
	// At 30 s the FileSet runs twice: first with the shortcut off
	// (fullCheckEvery 1: every tree listed every interval, as before it
	// came), then as the Forge has it by default; the note after W2
	// prints both side by side.
	var before, after w2Rest
	for _, v := range []struct {
		interval time.Duration
		every    int32
		into     *w2Rest
	}{{10 * time.Minute, 0, nil}, {30 * time.Second, 1, &before}, {30 * time.Second, 0, &after}} {
		sub := fmt.Sprintf("%s/interval=%s", name, shortDuration(v.interval))
		if v.every > 0 {
			sub += fmt.Sprintf("/fullCheckEvery=%d", v.every)
		}
		b.Run(sub, func(b *testing.B) {
			for b.Loop() {
				r := runW2(b, cfg, w, v.interval, limit, v.every)
				if v.into != nil {
					*v.into = r
				}
			}
		})
	}
	if w.fileSet && before.ran && after.ran {
		fmt.Printf("%s at 30 s, at rest: tree listings per repository per interval %.3f with fullCheckEvery 1 (every tree every interval), %.3f with fullCheckEvery %d; the Forge's status.driftScopes %d and %d, status.driftCheckIntervals %d and %d\n",
			name, before.trees, after.trees, forgev1.DefaultFullCheckEvery, before.scopes, after.scopes, before.intervals, after.intervals)
	}
	b.Run(name+"/receiver/interval=10m", func(b *testing.B) {
		for b.Loop() {
			runW2Receiver(b, cfg, w, limit)
		}
	})
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

// w2Rest is what a run of W2 measured at rest, for the note comparing
// two: the FileSet's tree listings per repository per interval and the
// Forge's drift load.
type w2Rest struct {
	ran               bool
	trees             float64
	scopes, intervals int32
}

// runW2 runs W2 at interval; every, when set, is the Forge's
// fullCheckEvery (else its default).
func runW2(b *testing.B, cfg *rest.Config, w governed, interval, limit time.Duration, every int32) w2Rest {
	run := w.start(b, cfg, interval, "")
	defer run.stop()
	if every > 0 {
		var fg forgev1.Forge
		key := types.NamespacedName{Namespace: run.ns, Name: "gitea"}
		if err := run.k8s.Get(context.Background(), key, &fg); err != nil {
			b.Fatal(err)
		}
		fg.Spec.FullCheckEvery = &every
		if err := run.k8s.Update(context.Background(), &fg); err != nil {
			b.Fatal(err)
		}
	}
	w.apply(run, "")

	// What the sets had put on the forge, and the passes the manager had
	// made, when all were Ready (or the wait ended) and after the rest.
	var (
		coverReady, coverRest         []setCoverage
		filesReady, filesRest         fileCoverage
		passesReady, passesRest       map[string]map[string]float64
		passesReadyErr, passesRestErr error
	)
	rec := run.convergeWith(w.objects(), convergeOptions{limit: limit, printOnTimeout: true, restEnv: []string{"W2_REST", "W1_REST"},
		atReady: func() {
			coverReady, filesReady = w.coverage(run.fake), w.fileCoverage(run.fake)
			passesReady, passesReadyErr = run.proc.reconciles()
		},
		atRest: func() {
			coverRest, filesRest = w.coverage(run.fake), w.fileCoverage(run.fake)
			passesRest, passesRestErr = run.proc.reconciles()
		}})
	printKinds(w.kinds(), rec, run.qps)

	fmt.Printf("  W2: %d repositories, %d of them new (created by the operator), %d in the sets (the %d sandboxes excluded); %d RepositorySets, %d FileSets\n",
		w.repos(), w.newRepos(), w.orgs*w.reposPerOrg, w.orgs*w.sandboxesPerOrg, w.sets(), w.fileSets())
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
	if writes(rec.restKube) > 0 {
		fmt.Printf("  Kubernetes requests at rest:\n")
		printKube(rec.restKube)
	}
	w.printRepositorySet(rec)
	checks := 0.0
	if passesReadyErr == nil && passesRestErr == nil {
		checks = sum(passesRest["ran/fileset"]) - sum(passesReady["ran/fileset"])
	}
	out := w2Rest{ran: true, trees: w.printFileSet(b, rec, filesReady, filesRest, checks)}
	// What the Forge says of its drift load, as of its last check.
	var fg forgev1.Forge
	if err := run.k8s.Get(context.Background(), types.NamespacedName{Namespace: run.ns, Name: "gitea"}, &fg); err == nil {
		fmt.Printf("  the Forge after the rest: spec.fullCheckEvery %d, status.driftScopes %d, status.driftCheckIntervals %d\n",
			fg.Spec.FullChecksEvery(), fg.Status.DriftScopes, fg.Status.DriftCheckIntervals)
		out.scopes, out.intervals = fg.Status.DriftScopes, fg.Status.DriftCheckIntervals
	}
	return out
}

// start starts a run of W2 whose manager checks for drift every interval
// and serves deliveries on receiver ("": none), on a forge seeded as
// users meet it: the organizations, the repositories not new, and the
// teams' members as users.
func (w governed) start(b *testing.B, cfg *rest.Config, interval time.Duration, receiver string) *benchRun {
	return newRunWith(b, cfg, 0, interval, receiver, func(fake *fakeforge.Server) {
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
}

// apply applies W2's resources to run, at once; the Receiver's URL is
// http://receiver (with w.receiver).
func (w governed) apply(run *benchRun, receiver string) {
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
			Spec: forgev1.BranchProtectionSetSpec{ManagedSpec: spec, Repositories: repos, Rules: w.rules(run.fake.Login())}})
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
		if w.fileSet {
			apply(&forgev1.FileSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: org + "-files"},
				Spec: forgev1.FileSetSpec{ManagedSpec: spec, Repositories: repos, FilesSpec: forgev1.FilesSpec{Files: w2Files, Message: w2FileMessage}}})
		}
	}
	if w.receiver {
		recv := &forgev1.Receiver{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "events"},
			Spec: forgev1.ReceiverSpec{ManagedSpec: spec, URL: "http://" + receiver}}
		for o := range w.orgs {
			recv.Spec.Organizations = append(recv.Spec.Organizations, forgev1.OwnerName(fmt.Sprintf("org-%02d", o)))
		}
		apply(recv)
	}
}
