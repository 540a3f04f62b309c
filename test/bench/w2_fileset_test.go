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
	"strings"
	"testing"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/fakeforge"
)

// W2's FileSets: the files a platform team keeps the same in every
// repository, one commit per repository, drift checked from one tree
// listing per repository per interval.

// w2Files are what each organization's FileSet keeps: 5 files, written
// in one commit per repository.
var w2Files = []forgev1.RepositoryFileEntry{
	{Path: "CODEOWNERS", Content: ptr("* @org/team-0\n")},
	{Path: ".editorconfig", Content: ptr("root = true\n\n[*]\nend_of_line = lf\ninsert_final_newline = true\n")},
	{Path: "LICENSE", Content: ptr("Copyright 2026 W2\n\nLicensed under the Apache License, Version 2.0.\n")},
	{Path: ".gitea/workflows/ci.yaml", Content: ptr("on: [push, pull_request]\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v4\n      - run: make test\n")},
	{Path: ".gitea/ISSUE_TEMPLATE/bug.md", Content: ptr("---\nname: Bug\nabout: Something does not work\n---\n\nWhat happened, what you expected.\n")},
}

// w2FileMessage is the message of the FileSets' commits: with the trailer
// naming a FileSet, what tells them from the others on the fake forge.
const w2FileMessage = "chore: files kept by W2"

// fileCoverage is what W2's FileSets had written, read from the fake
// forge's state (no call to its API, none recorded): their commits in the
// repositories they cover (in all, and the most in one repository) and in
// the sandboxes, and the repositories lacking one of the files as the set
// has it (missing: not on the forge yet).
type fileCoverage struct {
	covered, commits, most, sandboxCommits int
	lacking, absent                        int
}

func (w governed) fileCoverage(fake *fakeforge.Server) fileCoverage {
	var c fileCoverage
	if !w.fileSet {
		return c
	}
	for o := range w.orgs {
		org := fmt.Sprintf("org-%02d", o)
		for r := range w.perOrg() {
			repo := w.repoName(r)
			_, there := fake.Repo(org, repo)
			if r >= w.reposPerOrg {
				if there {
					c.sandboxCommits += w2Commits(fake, org, repo)
				}
				continue
			}
			c.covered++
			if !there {
				c.absent++
				c.lacking++
				continue
			}
			n := w2Commits(fake, org, repo)
			c.commits += n
			c.most = max(c.most, n)
			if !hasW2Files(fake, org, repo) {
				c.lacking++
			}
		}
	}
	return c
}

// w2Commits counts the FileSet's commits on a repository's default branch.
func w2Commits(fake *fakeforge.Server, org, repo string) int {
	n := 0
	for _, cm := range fake.Commits(org, repo, "") {
		if strings.HasPrefix(cm.Message, w2FileMessage+"\n\nKept-by: FileSet ") {
			n++
		}
	}
	return n
}

// hasW2Files is whether a repository's default branch holds every file of
// w2Files, as the FileSet has it.
func hasW2Files(fake *fakeforge.Server, org, repo string) bool {
	files := fake.Files(org, repo, "")
	for _, f := range w2Files {
		if got, ok := files[string(f.Path)]; !ok || got != *f.Content {
			return false
		}
	}
	return true
}

// printFileSet prints what W2's FileSets cost: when they were all Ready,
// their commits (counted on the fake forge: one per repository covered),
// their forge calls to converge (tree listings and change-files calls) and
// Kubernetes writes, and at rest the tree listings per repository per
// interval and per check (checks: the FileSets' passes at rest, 0 when
// not known; one listing per repository per check, no file downloaded)
// and any write. One commit per repository is an invariant, not a timing: a run
// all Ready with another count, or a commit at rest, fails. It answers the
// tree listings per repository per interval at rest.
func (w governed) printFileSet(b *testing.B, rec recorded, ready, rest fileCoverage, checks float64) float64 {
	if !w.fileSet {
		fmt.Printf("  FileSet: none (W2_FILESET=off)\n")
		return 0
	}
	fmt.Printf("  FileSet, %d sets of %d files over %d repositories:\n", w.fileSets(), len(w2Files), w.orgs*w.reposPerOrg)
	if seen := rec.readiness.kinds["FileSet"]; seen != nil && seen.all {
		fmt.Printf("    all FileSets first Ready %.1fs after the apply began (all of W2 at %.1fs)\n", seen.allAt.Seconds(), rec.ready.Seconds())
	}
	count := func(calls []call) (trees, commits, other int) {
		for _, c := range calls {
			switch k := kindOf(c); {
			case k == "git" && c.method == http.MethodGet:
				trees++
			case k == "contents" && c.method == http.MethodPost:
				commits++
			case k == "git" || k == "contents":
				other++
			}
		}
		return trees, commits, other
	}
	kube := func(m map[string]int) int {
		n := 0
		for k, v := range m {
			if strings.HasSuffix(k, " filesets") || strings.HasSuffix(k, " filesets/status") {
				n += v
			}
		}
		return n
	}
	covered := float64(ready.covered)
	trees, posts, other := count(rec.calls)
	fmt.Printf("    to converge: %d commits on the forge (%d repositories covered, most in one: %d; sandboxes: %d; repositories lacking a file: %d, %d of them not on the forge yet), %d change-files calls, %d tree listings (%.2f per repository), %d other file calls; %d Kubernetes writes of the FileSets (%.1f per set)\n",
		ready.commits, ready.covered, ready.most, ready.sandboxCommits, ready.lacking, ready.absent, posts, trees, float64(trees)/covered, other,
		kube(rec.kube), float64(kube(rec.kube))/float64(w.fileSets()))
	trees, posts, other = count(rec.rest)
	perCheck := "-"
	if checks > 0 {
		perCheck = fmt.Sprintf("%.2f", float64(trees)/checks/float64(w.reposPerOrg))
	}
	fmt.Printf("    at rest over %.2f intervals: %.3f tree listings per repository per interval (%d; per repository per check of a set: %s, %.0f checks), %d change-files calls, %d other file calls, %d commits more; %d Kubernetes writes of the FileSets\n",
		rec.intervals, float64(trees)/covered/rec.intervals, trees, perCheck, checks, posts, other, rest.commits-ready.commits, kube(rec.restKube))
	if rec.readiness.done && ready.commits != ready.covered {
		b.Fatalf("all Ready with %d FileSet commits over %d repositories: one per repository is the contract", ready.commits, ready.covered)
	}
	if rec.readiness.done && rest.commits != ready.commits {
		b.Fatalf("%d FileSet commits at rest: nothing changed on the forge", rest.commits-ready.commits)
	}
	return float64(trees) / covered / rec.intervals
}
