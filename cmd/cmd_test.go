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

package cmd_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/forgeops/forge-operator/cmd"
	"github.com/forgeops/forge-operator/internal/fakeforge"
)

// TestExportCommand checks the command line a user types: exit codes,
// messages, and where the token may come from.
func TestExportCommand(t *testing.T) {
	fake, srv := fakeforge.NewTestServer(t)
	if _, err := fake.CreateOrg("acme"); err != nil {
		t.Fatal(err)
	}
	tokenFile := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(tokenFile, []byte(fakeforge.DefaultToken+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name     string
		env      string
		args     []string
		code     int
		stdout   string
		stderrIs string
	}{
		{name: "token from a file", args: []string{"--url", srv.URL, "--org", "acme", "--token-file", tokenFile},
			code: 0, stdout: "kind: Organization"},
		{name: "token from FORGE_TOKEN", env: fakeforge.DefaultToken, args: []string{"--url", srv.URL, "--org", "acme"},
			code: 0, stdout: "kind: Organization"},
		{name: "no token", args: []string{"--url", srv.URL, "--org", "acme"},
			code: 1, stderrIs: "no token: set FORGE_TOKEN or --token-file"},
		{name: "a token is never a flag value", env: fakeforge.DefaultToken, args: []string{"--url", srv.URL, "--org", "acme", "--token", "x"},
			code: 1, stderrIs: "flag provided but not defined: -token"},
		{name: "no org", env: fakeforge.DefaultToken, args: []string{"--url", srv.URL},
			code: 1, stderrIs: "--org is required"},
		{name: "no url", env: fakeforge.DefaultToken, args: []string{"--org", "acme"},
			code: 1, stderrIs: "--url is required"},
		{name: "unknown organization", env: fakeforge.DefaultToken, args: []string{"--url", srv.URL, "--org", "nope"},
			code: 1, stderrIs: `read organization "nope"`},
		{name: "wrong token", env: "wrong", args: []string{"--url", srv.URL, "--org", "acme"},
			code: 1, stderrIs: "401"},
		{name: "a Forge by default", env: fakeforge.DefaultToken, args: []string{"--url", srv.URL, "--org", "acme"},
			code: 0, stdout: "spec:\n  deletionPolicy: Orphan\n  forgeRef:\n    name: gitea\n"},
		{name: "a ClusterForge", env: fakeforge.DefaultToken, args: []string{"--url", srv.URL, "--org", "acme", "--forge-ref", "ClusterForge/shared"},
			code: 0, stdout: "  forgeRef:\n    kind: ClusterForge\n    name: shared\n"},
		{name: "a ClusterForge, kind in lower case", env: fakeforge.DefaultToken, args: []string{"--url", srv.URL, "--org", "acme", "--forge-ref", "clusterforge/shared"},
			code: 0, stdout: "  forgeRef:\n    kind: ClusterForge\n    name: shared\n"},
		{name: "a ClusterForge without a name", env: fakeforge.DefaultToken, args: []string{"--url", srv.URL, "--org", "acme", "--forge-ref", "ClusterForge/"},
			code: 1, stderrIs: `export: --forge-ref: no name in "ClusterForge/": want NAME, Forge/NAME or ClusterForge/NAME`},
		{name: "an empty --forge-ref", env: fakeforge.DefaultToken, args: []string{"--url", srv.URL, "--org", "acme", "--forge-ref", ""},
			code: 1, stderrIs: `export: --forge-ref: no name in ""`},
		{name: "an unknown kind", env: fakeforge.DefaultToken, args: []string{"--url", srv.URL, "--org", "acme", "--forge-ref", "Namespace/shared"},
			code: 1, stderrIs: `export: --forge-ref: unknown kind "Namespace" in "Namespace/shared": want NAME, Forge/NAME or ClusterForge/NAME`},
		{name: "--files with a path a FileSet refuses", env: fakeforge.DefaultToken, args: []string{"--url", srv.URL, "--org", "acme", "--files", "LICENSE, ../etc/passwd"},
			code: 1, stderrIs: `export: --files: path "../etc/passwd": must not hold a '.' or '..' component`},
		{name: "--files naming no path", env: fakeforge.DefaultToken, args: []string{"--url", srv.URL, "--org", "acme", "--files", " , "},
			code: 1, stderrIs: `export: --files: no path`},
		{name: "--files over an organization without a repository", env: fakeforge.DefaultToken, args: []string{"--url", srv.URL, "--org", "acme", "--files", "LICENSE"},
			code: 0, stdout: "# export --files: no live repository of acme has a commit: no FileSet is proposed."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Setenv("FORGE_TOKEN", c.env)
			var out, errOut bytes.Buffer
			code := cmd.Run(context.Background(), "export", c.args, &out, &errOut)
			if code != c.code {
				t.Fatalf("exit code %d, want %d; stderr: %s", code, c.code, errOut.String())
			}
			if !strings.Contains(out.String(), c.stdout) {
				t.Fatalf("stdout lacks %q:\n%s", c.stdout, out.String())
			}
			if !strings.Contains(errOut.String(), c.stderrIs) {
				t.Fatalf("stderr lacks %q:\n%s", c.stderrIs, errOut.String())
			}
			if strings.Contains(out.String()+errOut.String(), fakeforge.DefaultToken) {
				t.Fatal("the token was printed")
			}
		})
	}
	var errOut bytes.Buffer
	if code := cmd.Run(context.Background(), "exprot", nil, &bytes.Buffer{}, &errOut); code != 1 || !strings.Contains(errOut.String(), `unknown subcommand "exprot"`) {
		t.Fatalf("unknown subcommand: %d %s", code, errOut.String())
	}
}
