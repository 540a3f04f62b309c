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
	"slices"
	"strings"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/forge"
)

// What W2 prints: when each kind was Ready, the passes, the forge calls by
// kind of route, and what the sets had put on the forge.

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
