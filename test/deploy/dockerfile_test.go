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
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/yaml"
)

// stage is one FROM of the Dockerfile and its instructions, continuation
// lines joined.
type stage struct {
	from         string
	instructions []string
}

// image returns the image (or earlier stage) a FROM line names and the
// stage's own name after AS, if any; --platform and other flags are skipped.
func (s stage) image() (image, name string) {
	args := slices.DeleteFunc(strings.Fields(s.from)[1:], func(a string) bool { return strings.HasPrefix(a, "--") })
	if len(args) == 0 {
		return "", ""
	}
	if len(args) == 3 && strings.EqualFold(args[1], "AS") {
		name = args[2]
	}
	return args[0], name
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
	if image, _ := final.image(); strings.Split(image, "@")[0] != "gcr.io/distroless/static:nonroot" {
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

// pinnedImage is an image reference with both a tag and the sha256 digest
// of what it was resolved to: [registry[:port]/]path:tag@sha256:<64 hex>.
var pinnedImage = regexp.MustCompile(`^[a-z0-9]+([._-][a-z0-9]+)*(:[0-9]+)?(/[a-z0-9]+([._-][a-z0-9]+)*)*` +
	`:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}@sha256:[0-9a-f]{64}$`)

// unpinnedBases returns the FROM lines of stages whose base image is not
// pinned by tag and digest. A stage built on an earlier stage is pinned by
// that stage; scratch is no image at all.
func unpinnedBases(stages []stage) []string {
	var bad []string
	names := map[string]bool{"scratch": true}
	for _, s := range stages {
		image, name := s.image()
		if !names[strings.ToLower(image)] && !pinnedImage.MatchString(image) {
			bad = append(bad, s.from)
		}
		if name != "" {
			names[strings.ToLower(name)] = true
		}
	}
	return bad
}

// TestDockerfileBaseImagesArePinnedByDigest: every base image is pinned by
// the digest it was resolved to, with the tag beside it for people and
// Dependabot, so that a rebuild of the same commit gets the same bases.
func TestDockerfileBaseImagesArePinnedByDigest(t *testing.T) {
	stages := dockerfileStages(t)
	for _, from := range unpinnedBases(stages) {
		t.Errorf("Dockerfile: %q: want image:tag@sha256:<64 hex digits> (see the comment at the top of the Dockerfile)", from)
	}

	const digest = "@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
	for _, tc := range []struct {
		from   string
		pinned bool
	}{
		{"FROM golang:1.26.9" + digest + " AS builder", true},
		{"FROM --platform=$BUILDPLATFORM golang:1.26.9" + digest + " AS builder", true},
		{"FROM gcr.io/distroless/static:nonroot" + digest, true},
		{"FROM registry.example.com:5000/team/base:v1.2.3" + digest, true},
		{"FROM scratch", true},
		{"FROM golang:1.26", false},
		{"FROM gcr.io/distroless/static:nonroot", false},
		{"FROM golang" + digest, false},
		{"FROM golang:1.26@sha256:0123456789abcdef", false},
		{"FROM golang:1.26" + strings.ToUpper(digest), false},
		{"FROM golang:1.26@sha512:" + strings.Repeat("0", 128), false},
		{"FROM ${BASE_IMAGE}", false},
		{"FROM golang:${GO_VERSION}" + digest, false},
	} {
		got := len(unpinnedBases([]stage{{from: tc.from}})) == 0
		if got != tc.pinned {
			t.Errorf("%q: pinned %v, want %v", tc.from, got, tc.pinned)
		}
	}
	// A later stage may build on an earlier one by its name.
	if bad := unpinnedBases([]stage{{from: "FROM golang:1.26.9" + digest + " AS build"}, {from: "FROM build"}}); len(bad) != 0 {
		t.Errorf("a stage on an earlier stage counts as unpinned: %v", bad)
	}

	// The official golang image builds with its own Go only (GOTOOLCHAIN=local):
	// the pinned tag must be at least the go directive of go.mod.
	b, err := os.ReadFile(repoPath("go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	goVersion := regexp.MustCompile(`(?m)^go ([0-9.]+)$`).FindSubmatch(b)
	if goVersion == nil {
		t.Fatal("go.mod has no go directive")
	}
	image, _ := stages[0].image()
	tag, ok := strings.CutPrefix(strings.Split(image, "@")[0], "golang:")
	if !ok || goVersionParts(tag) == nil {
		t.Fatalf("builder stage %q: want golang:<Go version>@sha256:...", stages[0].from)
	}
	// golang:1.26 is the newest 1.26.x: compare as many numbers as the tag has.
	have, need := goVersionParts(tag), goVersionParts(string(goVersion[1]))
	if slices.Compare(have, need[:min(len(have), len(need))]) < 0 {
		t.Errorf("builder golang:%s is older than go.mod's go %s", tag, goVersion[1])
	}
}

// goVersionParts splits a Go version such as 1.26.9 into its numbers, or
// returns nil for anything else (a tag like 1.26-alpine).
func goVersionParts(v string) []int {
	var out []int
	for p := range strings.SplitSeq(v, ".") {
		n, err := strconv.Atoi(p)
		if err != nil {
			return nil
		}
		out = append(out, n)
	}
	return out
}

// TestDependabotKeepsThePinsFresh: pinned digests are only as good as their
// updates; Dependabot proposes new base images for the Dockerfile and new
// versions for every Go module of the repository.
func TestDependabotKeepsThePinsFresh(t *testing.T) {
	b, err := os.ReadFile(repoPath(".github", "dependabot.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Version int `json:"version"`
		Updates []struct {
			Ecosystem   string   `json:"package-ecosystem"`
			Directory   string   `json:"directory"`
			Directories []string `json:"directories"`
			Schedule    struct {
				Interval string `json:"interval"`
			} `json:"schedule"`
		} `json:"updates"`
	}
	if err := yaml.Unmarshal(b, &cfg); err != nil {
		t.Fatalf(".github/dependabot.yml: %v", err)
	}
	if cfg.Version != 2 {
		t.Errorf(".github/dependabot.yml version %d, want 2", cfg.Version)
	}
	covered := map[string][]string{}
	for _, u := range cfg.Updates {
		if u.Schedule.Interval == "" {
			t.Errorf("%s update without a schedule interval", u.Ecosystem)
		}
		dirs := u.Directories
		if u.Directory != "" {
			dirs = append(dirs, u.Directory)
		}
		covered[u.Ecosystem] = append(covered[u.Ecosystem], dirs...)
	}
	if !slices.Contains(covered["docker"], "/") {
		t.Errorf("Dependabot docker updates cover %v, want / (the Dockerfile)", covered["docker"])
	}
	// Every go.mod of the repository.
	root := repoPath()
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (d.Name() == "bin" || d.Name()[0] == '.') {
			return filepath.SkipDir
		}
		if d.Name() != "go.mod" {
			return nil
		}
		rel, _ := filepath.Rel(root, filepath.Dir(path))
		dir := "/" + strings.TrimPrefix(filepath.ToSlash(rel), ".")
		if !slices.Contains(covered["gomod"], dir) {
			t.Errorf("Dependabot gomod updates cover %v, not %s", covered["gomod"], dir)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
