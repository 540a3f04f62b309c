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

package testenv

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// yamlBlock is a fenced ```yaml block of a Markdown page.
var yamlBlock = regexp.MustCompile("(?ms)^```yaml\\n(.*?)^```")

// DocPages are the Markdown pages of this checkout whose examples the
// tests apply: README.md and every page of docs/, as paths relative to the
// checkout.
func DocPages() ([]string, error) {
	pages, err := filepath.Glob(filepath.Join(RepoRoot(), "docs", "*.md"))
	if err != nil {
		return nil, err
	}
	out := []string{"README.md"}
	for _, p := range pages {
		rel, err := filepath.Rel(RepoRoot(), p)
		if err != nil {
			return nil, err
		}
		out = append(out, filepath.ToSlash(rel))
	}
	return out, nil
}

// DocObjects decodes every document of the ```yaml blocks of the Markdown
// page at path (relative to the checkout), in the page's order; each
// names its page and the line its block starts on, and a document that is
// not a mapping (a snippet such as a list of flags) has no Object.
func DocObjects(path string) ([]Sample, error) {
	raw, err := os.ReadFile(filepath.Join(RepoRoot(), path))
	if err != nil {
		return nil, err
	}
	var out []Sample
	for _, m := range yamlBlock.FindAllSubmatchIndex(raw, -1) {
		line := 1 + strings.Count(string(raw[:m[0]]), "\n")
		objs, err := decodeObjects(fmt.Sprintf("%s:%d", path, line), raw[m[2]:m[3]])
		if err != nil {
			return nil, err
		}
		out = append(out, objs...)
	}
	return out, nil
}
