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

// Package docs holds the documentation to what a reader relies on: the
// README stays an entry page, every kind has its row and its section, and
// the links between the pages lead somewhere. (That their examples are
// valid is checked against the CRDs in api/v1beta1.)
package docs

import (
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/forgeops/forge-operator/internal/testenv"
)

// page is a Markdown page of the checkout: its lines outside code blocks,
// and the anchors its headings make.
type page struct {
	lines   []string
	anchors map[string]bool
}

var heading = regexp.MustCompile(`^(#+) (.*)$`)

// readPage reads the page at rel (slash-separated, relative to the checkout).
func readPage(t *testing.T, rel string) page {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	p := page{anchors: map[string]bool{}}
	fenced := false
	for _, line := range strings.Split(string(raw), "\n") {
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		p.lines = append(p.lines, line)
		if m := heading.FindStringSubmatch(line); m != nil {
			p.anchors[anchor(m[2])] = true
		}
	}
	return p
}

// anchor is the fragment GitHub gives a heading: lower case, letters,
// digits, '-' and '_' kept, spaces made '-', the rest dropped.
func anchor(text string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(text)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

func pages(t *testing.T) map[string]page {
	t.Helper()
	names, err := testenv.DocPages()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]page{}
	for _, n := range names {
		out[n] = readPage(t, n)
	}
	return out
}

// TestReadmeIsAnEntryPage: the README says what the operator is, how to
// try and install it and where to read on; the rest is in docs/.
func TestReadmeIsAnEntryPage(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(testenv.RepoRoot(), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(raw), "\n"); n > 300 {
		t.Errorf("README.md has %d lines: keep it to what a new user needs (at most 300) and move the rest to a page of docs/", n)
	}
	for _, want := range []string{"## Two commands", "make test", "make demo", "helm install forge-operator charts/forge-operator", "make deploy"} {
		if !strings.Contains(string(raw), want) {
			t.Errorf("README.md lacks %q", want)
		}
	}
}

var (
	link       = regexp.MustCompile(`\]\(([^()\s]*)\)`)
	inlineCode = regexp.MustCompile("`[^`]*`")
)

// TestLinksBetweenPagesResolve: every relative link of README.md and docs/
// leads to a file of the checkout, and one to a page's heading (or to a
// heading of its own page) names a heading that exists there (moving a
// section moves its anchor with it).
func TestLinksBetweenPagesResolve(t *testing.T) {
	all := pages(t)
	for name, p := range all {
		for _, line := range p.lines {
			for _, m := range link.FindAllStringSubmatch(inlineCode.ReplaceAllString(line, ""), -1) {
				target, frag, _ := strings.Cut(m[1], "#")
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				to := name
				if target != "" {
					to = path.Clean(path.Join(path.Dir(name), target))
				}
				if _, err := os.Stat(filepath.Join(testenv.RepoRoot(), filepath.FromSlash(to))); err != nil {
					t.Errorf("%s links to %s, which is not in the checkout", name, to)
					continue
				}
				dest, isPage := all[to]
				if !isPage {
					continue // a file that is not a page: no headings to check
				}
				if frag != "" && !dest.anchors[frag] {
					t.Errorf("%s links to %s#%s: %s has no such heading", name, to, frag, to)
				}
			}
		}
	}
}

// TestEveryKindIsDocumented: each kind of the API has a row in the README's
// table of kinds and in docs/kinds.md's, and a section of docs/kinds.md
// whose heading names it, so that a new kind cannot go undocumented.
func TestEveryKindIsDocumented(t *testing.T) {
	all := pages(t)
	kinds := all["docs/kinds.md"]
	for _, kind := range testenv.Kinds() {
		row := "| " + kind + " |"
		for _, name := range []string{"README.md", "docs/kinds.md"} {
			if !slices.ContainsFunc(all[name].lines, func(l string) bool { return strings.HasPrefix(l, row) }) {
				t.Errorf("%s: the table of kinds has no row for %s", name, kind)
			}
		}
		named := regexp.MustCompile(`^## .*\b` + kind + `\b`)
		if !slices.ContainsFunc(kinds.lines, named.MatchString) {
			t.Errorf("docs/kinds.md has no section (a ## heading) naming %s", kind)
		}
	}
}
