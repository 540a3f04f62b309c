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

package deploy

import (
	"bufio"
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
)

// stage is one FROM of the Dockerfile and its instructions, continuation
// lines joined.
type stage struct {
	from         string
	instructions []string
}

func dockerfileStages(t *testing.T) []stage {
	t.Helper()
	f, err := os.Open(repoPath("Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var stages []stage
	var cur string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasSuffix(line, "\\") {
			cur += strings.TrimSuffix(line, "\\") + " "
			continue
		}
		line = cur + line
		cur = ""
		if strings.HasPrefix(line, "FROM ") {
			stages = append(stages, stage{from: line})
			continue
		}
		if len(stages) == 0 {
			if strings.HasPrefix(line, "ARG ") {
				continue
			}
			t.Fatalf("Dockerfile: %q before the first FROM", line)
		}
		stages[len(stages)-1].instructions = append(stages[len(stages)-1].instructions, line)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return stages
}

func TestDockerfileBuildsAStaticNonRootImage(t *testing.T) {
	stages := dockerfileStages(t)
	if len(stages) < 2 {
		t.Fatalf("%d stages, want a builder and a runtime stage", len(stages))
	}
	builder, final := stages[0], stages[len(stages)-1]
	if f := strings.Fields(final.from); f[len(f)-1] != "gcr.io/distroless/static:nonroot" {
		t.Errorf("runtime stage %q, want FROM gcr.io/distroless/static:nonroot", final.from)
	}
	build := ""
	for _, in := range builder.instructions {
		if strings.HasPrefix(in, "RUN ") && strings.Contains(in, "go build") {
			build = in
		}
	}
	if !strings.Contains(build, "CGO_ENABLED=0") {
		t.Errorf("builder builds with %q, want CGO_ENABLED=0 (distroless/static has no libc)", build)
	}
	if !slices.Contains(final.instructions, "USER 65532:65532") {
		t.Errorf("runtime stage %v does not switch to USER 65532:65532", final.instructions)
	}
	for _, in := range final.instructions {
		if strings.HasPrefix(in, "RUN ") {
			t.Errorf("runtime stage runs %q: distroless has no shell", in)
		}
	}

	// The Deployment's command is the image's entrypoint.
	var dep appsv1.Deployment
	render(t, repoPath("config", "default")).one(t, "Deployment", &dep)
	want := `ENTRYPOINT ["` + strings.Join(dep.Spec.Template.Spec.Containers[0].Command, `", "`) + `"]`
	if !slices.Contains(final.instructions, want) {
		t.Errorf("runtime stage %v lacks %s, the manager Deployment's command", final.instructions, want)
	}
}

// TestDockerBuildContextHoldsEveryPackageOfTheManager assembles what the
// builder stage sees (its COPY sources) and lists the manager's packages
// there: a package main imports from a directory nobody copies fails the
// image build and this test, not a release.
func TestDockerBuildContextHoldsEveryPackageOfTheManager(t *testing.T) {
	root := repoPath()
	ctx := t.TempDir()
	copyFile := func(rel, dst string) {
		b, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	builder := dockerfileStages(t)[0]
	copies := 0
	for _, in := range builder.instructions {
		args := strings.Fields(in)
		if args[0] != "COPY" {
			continue
		}
		args = slices.DeleteFunc(args[1:], func(a string) bool { return strings.HasPrefix(a, "--") })
		srcs, dest := args[:len(args)-1], args[len(args)-1]
		for _, src := range srcs {
			matches, err := filepath.Glob(filepath.Join(root, src))
			if err != nil || len(matches) == 0 {
				t.Fatalf("COPY %s: no such file in the checkout", src)
			}
			for _, m := range matches {
				rel, _ := filepath.Rel(root, m)
				st, err := os.Stat(m)
				if err != nil {
					t.Fatal(err)
				}
				if !st.IsDir() {
					copyFile(rel, filepath.Join(ctx, dest, filepath.Base(rel)))
					copies++
					continue
				}
				// COPY dir/ dest/ copies the directory's contents into dest.
				err = filepath.WalkDir(m, func(p string, d fs.DirEntry, err error) error {
					if err != nil || d.IsDir() {
						return err
					}
					inner, _ := filepath.Rel(m, p)
					relp, _ := filepath.Rel(root, p)
					copyFile(relp, filepath.Join(ctx, dest, inner))
					copies++
					return nil
				})
				if err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if copies == 0 {
		t.Fatal("the builder stage copies nothing")
	}

	// Offline and read-only: the module cache already holds every dependency.
	cmd := exec.Command("go", "list", "-e", "-deps", "-f", "{{if .Error}}{{.ImportPath}}: {{.Error}}{{end}}{{range .DepsErrors}}{{.}}\n{{end}}", ".")
	cmd.Dir = ctx
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=readonly", "GOPROXY=off", "GOWORK=off", "CGO_ENABLED=0")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go list in the build context: %v\n%s", err, stderr.String())
	}
	if s := strings.TrimSpace(stdout.String()); s != "" {
		t.Errorf("the manager does not build from the Docker build context:\n%s", s)
	}
}
