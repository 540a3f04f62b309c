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
	"maps"
	"net/http"
	"slices"
	"strings"
)

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
