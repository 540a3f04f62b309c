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

package v1beta1_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"
)

// labelSetSample is config/samples' LabelSet: acme's standard labels in
// every repository but the sandboxes.
func labelSetSample() string {
	raw, err := os.ReadFile(filepath.Join(samplesDir, "forge_v1beta1_labelset.yaml"))
	if err != nil {
		panic(fmt.Sprintf("read the LabelSet sample: %v", err))
	}
	return string(raw)
}

func init() {
	bases["LabelSet"] = `
apiVersion: forge.forgeops.dev/v1beta1
kind: LabelSet
metadata: {name: acme-standard}
spec:
  forgeRef: {name: gitea}
  repositories:
    organization: acme
  labels:
  - name: kind/bug
    color: "#d73a4a"
`
}

// manyLabels is a list of n labels named l000, l001, ..., each with prev
// previous names p000-0, p000-1, ...
func manyLabels(n, prev int) []any {
	out := make([]any, n)
	for i := range n {
		l := map[string]any{"name": fmt.Sprintf("l%03d", i), "color": "fff"}
		if prev > 0 {
			var names []string
			for j := range prev {
				names = append(names, fmt.Sprintf("p%03d-%d", i, j))
			}
			l["previousNames"] = strs(names...)
		}
		out[i] = l
	}
	return out
}

func sampleObj(src string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	if err := yaml.Unmarshal([]byte(src), &u.Object); err != nil {
		panic(fmt.Sprintf("sample: %v", err))
	}
	return u
}

func label(name string, fields ...any) map[string]any {
	l := map[string]any{"name": name, "color": "#abc"}
	for i := 0; i+1 < len(fields); i += 2 {
		l[fields[i].(string)] = fields[i+1]
	}
	return l
}

func labels(ls ...map[string]any) []any {
	out := make([]any, len(ls))
	for i := range ls {
		out[i] = ls[i]
	}
	return out
}

func repoNames(n int) []any {
	out := make([]any, n)
	for i := range n {
		out[i] = fmt.Sprintf("acme/r%03d", i)
	}
	return out
}

var _ = Describe("LabelSet admission", func() {
	create := func(ctx SpecContext, u *unstructured.Unstructured) error {
		u.SetNamespace(dryRunNamespace)
		return k8sClient.Create(ctx, u, client.DryRunAll)
	}
	byNames := func(names ...string) edit {
		return func(o map[string]any) {
			unset("spec.repositories.organization")(o)
			set("spec.repositories.names", strs(names...))(o)
		}
	}

	DescribeTable("accepts",
		func(ctx SpecContext, u *unstructured.Unstructured) {
			Expect(create(ctx, u)).To(Succeed())
		},
		Entry("the base object", obj("LabelSet")),
		Entry("the standard-labels sample", sampleObj(labelSetSample())),
		Entry("repositories by name", obj("LabelSet", byNames("acme/web", "acme/api"))),
		Entry("500 repositories by name", obj("LabelSet", unset("spec.repositories.organization"),
			set("spec.repositories.names", repoNames(500)))),
		Entry("include and exclude globs", obj("LabelSet",
			set("spec.repositories.include", strs("web-*", "api?", "[a-c]*")), set("spec.repositories.exclude", strs("sandbox-*")))),
		Entry("topics with include and exclude", obj("LabelSet", set("spec.repositories.topics", strs("service", "go", "k8s.io-v1")),
			set("spec.repositories.include", strs("web-*")), set("spec.repositories.exclude", strs("web-old")))),
		Entry("20 topics", obj("LabelSet", set("spec.repositories.topics", topics(20)))),
		Entry("every field of a label, renames included", obj("LabelSet", set("spec.labels", labels(
			label("kind/bug", "description", "Something is broken", "exclusive", true, "archived", false, "previousNames", strs("bug", "type/bug")),
			label("kind/feature", "color", "A2EEEF", "previousNames", strs("enhancement")),
		)))),
		// The largest set: the previous-names rule must fit the CEL runtime budget.
		Entry("500 labels, each with 10 previous names", obj("LabelSet", set("spec.labels", manyLabels(500, 10)))),
		Entry("a 255-character name with inner spaces", obj("LabelSet", set("spec.labels", labels(
			label("good first "+strings.Repeat("x", 244)))))),
		Entry("Authoritative with preserve and no deletion guard", obj("LabelSet",
			set("spec.mode", "Authoritative"), set("spec.preserve", "^(wontfix|duplicate)$"), set("spec.maxDeletionsPerRepository", int64(0)))),
		Entry("Delete policy, Observe", obj("LabelSet", set("spec.deletionPolicy", "Delete"), set("spec.managementPolicy", "Observe"))),
		Entry("Authoritative, removals reported", obj("LabelSet", set("spec.mode", "Authoritative"), set("spec.removals", "Report"))),
	)

	DescribeTable("rejects, naming the field",
		func(ctx SpecContext, u *unstructured.Unstructured, field string) {
			expectRejected(create(ctx, u), field)
		},
		Entry("neither names nor organization", obj("LabelSet", unset("spec.repositories.organization")), "spec.repositories"),
		Entry("both names and organization", obj("LabelSet", set("spec.repositories.names", strs("acme/web"))), "spec.repositories"),
		Entry("include with names", obj("LabelSet", byNames("acme/web"), set("spec.repositories.include", strs("web-*"))), "spec.repositories"),
		Entry("exclude with names", obj("LabelSet", byNames("acme/web"), set("spec.repositories.exclude", strs("web-*"))), "spec.repositories"),
		Entry("topics with names", obj("LabelSet", byNames("acme/web"), set("spec.repositories.topics", strs("go"))),
			"topics apply only with organization"),
		Entry("empty topics", obj("LabelSet", set("spec.repositories.topics", []any{})), "spec.repositories.topics"),
		Entry("21 topics", obj("LabelSet", set("spec.repositories.topics", topics(21))), "spec.repositories.topics"),
		Entry("an upper-case topic", obj("LabelSet", set("spec.repositories.topics", strs("Go"))), "spec.repositories.topics[0]"),
		Entry("a topic with an underscore", obj("LabelSet", set("spec.repositories.topics", strs("a_b"))), "spec.repositories.topics[0]"),
		Entry("a 36-character topic", obj("LabelSet", set("spec.repositories.topics", strs(strings.Repeat("t", 36)))), "spec.repositories.topics[0]"),
		Entry("a topic twice", obj("LabelSet", set("spec.repositories.topics", strs("go", "go"))), "spec.repositories.topics[1]"),
		Entry("empty names", obj("LabelSet", unset("spec.repositories.organization"), set("spec.repositories.names", []any{})), "spec.repositories.names"),
		Entry("501 names", obj("LabelSet", unset("spec.repositories.organization"), set("spec.repositories.names", repoNames(501))), "spec.repositories.names"),
		Entry("a name twice", obj("LabelSet", byNames("acme/web", "acme/web")), "spec.repositories.names[1]"),
		Entry("a name without owner", obj("LabelSet", byNames("web")), "spec.repositories.names[0]"),
		Entry("a bad organization", obj("LabelSet", set("spec.repositories.organization", "acme--corp")), "spec.repositories.organization"),
		Entry("a glob with a slash", obj("LabelSet", set("spec.repositories.include", strs("acme/*"))), "spec.repositories.include[0]"),
		Entry("an empty glob", obj("LabelSet", set("spec.repositories.exclude", strs(""))), "spec.repositories.exclude[0]"),
		Entry("a glob twice", obj("LabelSet", set("spec.repositories.exclude", strs("a*", "a*"))), "spec.repositories.exclude[1]"),
		Entry("no labels", obj("LabelSet", set("spec.labels", []any{})), "spec.labels"),
		Entry("labels missing", obj("LabelSet", unset("spec.labels")), "spec.labels"),
		Entry("501 labels", obj("LabelSet", set("spec.labels", manyLabels(501, 0))), "spec.labels"),
		// Besides "spec.labels[1]: Duplicate value", the previous-names rule
		// fails to build its map of names: "key bug already exists".
		Entry("a label name twice", obj("LabelSet", set("spec.labels", labels(label("bug"), label("bug")))), "spec.labels"),
		Entry("an empty label name", obj("LabelSet", set("spec.labels", labels(label("")))), "spec.labels[0].name"),
		Entry("a label name with a leading space", obj("LabelSet", set("spec.labels", labels(label(" bug")))), "spec.labels[0].name"),
		Entry("a label name with a trailing space", obj("LabelSet", set("spec.labels", labels(label("bug ")))), "spec.labels[0].name"),
		Entry("a label name of 256 characters", obj("LabelSet", set("spec.labels", labels(label(strings.Repeat("x", 256))))), "spec.labels[0].name"),
		Entry("a colour of 4 digits", obj("LabelSet", set("spec.labels", labels(label("bug", "color", "#abcd")))), "spec.labels[0].color"),
		Entry("a colour name", obj("LabelSet", set("spec.labels", labels(label("bug", "color", "red")))), "spec.labels[0].color"),
		Entry("a colour missing", obj("LabelSet", set("spec.labels", labels(map[string]any{"name": "bug"}))), "spec.labels[0].color"),
		Entry("a description of 256 characters", obj("LabelSet", set("spec.labels", labels(label("bug", "description", strings.Repeat("d", 256))))), "spec.labels[0].description"),
		Entry("a previous name that is the label's own", obj("LabelSet", set("spec.labels", labels(label("bug", "previousNames", strs("defect", "bug"))))), "spec.labels[0]"),
		Entry("a previous name that is another listed label's name", obj("LabelSet", set("spec.labels", labels(
			label("kind/bug", "previousNames", strs("bug")), label("bug")))), "spec.labels"),
		Entry("a previous name twice", obj("LabelSet", set("spec.labels", labels(label("kind/bug", "previousNames", strs("bug", "bug"))))), "spec.labels[0].previousNames[1]"),
		Entry("a previous name with surrounding space", obj("LabelSet", set("spec.labels", labels(label("kind/bug", "previousNames", strs("bug "))))), "spec.labels[0].previousNames[0]"),
		Entry("11 previous names", obj("LabelSet", set("spec.labels", labels(label("kind/bug", "previousNames",
			strs("a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k"))))), "spec.labels[0].previousNames"),
		Entry("an unknown mode", obj("LabelSet", set("spec.mode", "Strict")), "spec.mode"),
		Entry("unknown removals", obj("LabelSet", set("spec.removals", "Ignore")), "spec.removals"),
		Entry("a negative deletion guard", obj("LabelSet", set("spec.maxDeletionsPerRepository", int64(-1))), "spec.maxDeletionsPerRepository"),
		Entry("an unknown deletionPolicy", obj("LabelSet", set("spec.deletionPolicy", "Retain")), "spec.deletionPolicy"),
		Entry("a preserve that is not RE2 (lookahead)", obj("LabelSet", set("spec.preserve", "^(?!keep)")), "spec.preserve"),
		Entry("a preserve with an unclosed group", obj("LabelSet", set("spec.preserve", "^(wontfix")), "spec.preserve"),
		Entry("a preserve of 1025 characters", obj("LabelSet", set("spec.preserve", strings.Repeat("a", 1025))), "spec.preserve"),
	)

	It("defaults mode, deletion policy and the deletion guard", func(ctx SpecContext) {
		u := obj("LabelSet")
		Expect(create(ctx, u)).To(Succeed())
		Expect(str(u, "spec", "mode")).To(Equal("Additive"))
		Expect(str(u, "spec", "deletionPolicy")).To(Equal("Orphan"))
		Expect(str(u, "spec", "managementPolicy")).To(Equal("Manage"))
		n, _, _ := unstructured.NestedInt64(u.Object, "spec", "maxDeletionsPerRepository")
		Expect(n).To(Equal(int64(10)))
	})
})
