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
	"strings"
)

// DocExample decodes the objects of the ```yaml blocks of the Markdown page
// at path (relative to the checkout) that stand between the HTML comments
// `<!-- name -->` and `<!-- /name -->`: an example a test applies as the
// page shows it. A page without both markers, or with no object between
// them, is an error, so an example moved or renamed fails its test rather
// than passing on nothing.
func DocExample(path, name string) ([]Sample, error) {
	raw, err := os.ReadFile(filepath.Join(RepoRoot(), path))
	if err != nil {
		return nil, err
	}
	text := string(raw)
	open, end := "<!-- "+name+" -->", "<!-- /"+name+" -->"
	from := strings.Index(text, open)
	to := strings.Index(text, end)
	if from < 0 || to < from {
		return nil, fmt.Errorf("%s: no %s ... %s", path, open, end)
	}
	var out []Sample
	region := text[from:to]
	for _, m := range yamlBlock.FindAllStringSubmatchIndex(region, -1) {
		line := 1 + strings.Count(text[:from+m[0]], "\n")
		objs, err := decodeObjects(fmt.Sprintf("%s:%d", path, line), []byte(region[m[2]:m[3]]))
		if err != nil {
			return nil, err
		}
		out = append(out, objs...)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no object between %s and %s", path, open, end)
	}
	return out, nil
}
