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

package forge_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/forgeops/forge-operator/internal/forge"
)

func TestNewServer(t *testing.T) {
	for _, tc := range []struct {
		reason, version string
		want            forge.Server
		name, reported  string
	}{
		{"Gitea before 1.27 shows a hook's authorization header", "1.26.1",
			forge.Server{Version: "1.26.1", Flavor: "gitea", SemVer: "1.26.1", ReturnsHookAuthHeader: true}, "gitea 1.26.1", "1.26.1"},
		{"Gitea before 1.26 has no runner edit", "1.25.5",
			forge.Server{Version: "1.25.5", Flavor: "gitea", SemVer: "1.25.5", ReturnsHookAuthHeader: true, LacksRunnerEdit: true}, "gitea 1.25.5", "1.25.5"},
		{"Gitea 1.27 hides it", "1.27.3",
			forge.Server{Version: "1.27.3", Flavor: "gitea", SemVer: "1.27.3", TellsTokenScopes: true}, "gitea 1.27.3", "1.27.3"},
		{"a Gitea dev build counts by its release", "1.28.0+dev-12-gabcdef",
			forge.Server{Version: "1.28.0+dev-12-gabcdef", Flavor: "gitea", SemVer: "1.28.0", TellsTokenScopes: true}, "gitea 1.28.0", "1.28.0+dev-12-gabcdef"},
		{"Forgejo shows it, and has no runner edit", "15.0.3+gitea-1.22.0",
			forge.Server{Version: "15.0.3+gitea-1.22.0", Flavor: "forgejo", SemVer: "15.0.3", ReturnsHookAuthHeader: true, LacksRunnerEdit: true}, "forgejo 15.0.3", "15.0.3+gitea-1.22.0"},
		{"Gitea before 1.23 has no tag protection API", "1.22.6",
			forge.Server{Version: "1.22.6", Flavor: "gitea", SemVer: "1.22.6", ReturnsHookAuthHeader: true, LacksWorkflowRunEvent: true, LacksTagProtections: true, LacksRunnerEdit: true},
			"gitea 1.22.6", "1.22.6"},
		{"an unstamped version counts as hiding it", "development",
			forge.Server{Version: "development"}, "server", "development"},
		{"no version yet", "", forge.Server{}, "server", "unknown"},
	} {
		t.Run(tc.version, func(t *testing.T) {
			got := forge.NewServer(tc.version)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("%s: NewServer(%q) (-want +got):\n%s", tc.reason, tc.version, diff)
			}
			if got.Name() != tc.name || got.ReportedVersion() != tc.reported {
				t.Errorf("Name() %q, ReportedVersion() %q; want %q, %q", got.Name(), got.ReportedVersion(), tc.name, tc.reported)
			}
		})
	}
}
