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

package e2e

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/forgeops/forge-operator/cmd"
	"github.com/forgeops/forge-operator/internal/forge"
)

// writeCounter is a reverse proxy in front of the forge that records every
// request that is not a read, so that a spec can prove the operator wrote
// nothing, on the fake and on a real server alike.
type writeCounter struct {
	srv    *httptest.Server
	mu     sync.Mutex
	writes []string
	// reqs are all the requests, reads too ("GET /api/v1/repos/o/r/git/trees/main").
	reqs []string
}

func newWriteCounter(target string) *writeCounter {
	GinkgoHelper()
	u, err := url.Parse(target)
	Expect(err).NotTo(HaveOccurred())
	wc := &writeCounter{}
	proxy := httputil.NewSingleHostReverseProxy(u)
	wc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		wc.mu.Lock()
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			wc.writes = append(wc.writes, r.Method+" "+r.URL.Path)
		}
		wc.reqs = append(wc.reqs, r.Method+" "+r.URL.Path)
		wc.mu.Unlock()
		proxy.ServeHTTP(w, r)
	}))
	DeferCleanup(wc.srv.Close)
	return wc
}

func (wc *writeCounter) Writes() []string {
	wc.mu.Lock()
	defer wc.mu.Unlock()
	return append([]string(nil), wc.writes...)
}

var _ = Describe("forge-operator export", func() {
	ctx := context.Background()

	It("writes what an organization holds; applied to an empty namespace, every object is Ready by adoption without a write to the forge", func() {
		sc := newScenario()
		_, err := fc.CreateOrg(ctx, forge.CreateOrgOption{Name: sc.org, FullName: "Export Test", Description: "an org to export",
			Website: "https://export.example.com", Location: "Lisbon", Visibility: "limited"})
		Expect(err).NotTo(HaveOccurred())
		const hookSecret = "export-hook-secret-value"
		_, err = fc.CreateHook(ctx, forge.OrgScope(sc.org), forge.CreateHookOption{Type: "gitea", Name: "ci", Active: true,
			Events: []string{"push", "pull_request"}, BranchFilter: "main",
			Config: map[string]string{"url": "https://ci.example.com/hook", "content_type": "json", "secret": hookSecret}})
		Expect(err).NotTo(HaveOccurred())
		_, err = fc.CreateHook(ctx, forge.OrgScope(sc.org), forge.CreateHookOption{Type: "gogs", Active: false,
			Config: map[string]string{"url": "https://legacy.example.com/hook", "content_type": "form"}})
		Expect(err).NotTo(HaveOccurred())
		for _, l := range []forge.CreateLabelOption{
			{Name: "kind/bug", Color: "#d73a4a", Description: "Something is broken", Exclusive: true},
			{Name: "Priority: High", Color: "#FF0000"},
			{Name: "wontfix", Color: "ffffff"},
		} {
			_, err := fc.CreateLabel(ctx, forge.OrgScope(sc.org), l)
			Expect(err).NotTo(HaveOccurred())
		}
		repo := sc.createRepo("web")
		sc.createRepo("api")
		for _, r := range []string{"web", "api"} {
			for _, l := range []forge.CreateLabelOption{{Name: "kind/bug", Color: "#d73a4a", Exclusive: true}, {Name: "help wanted", Color: "#008672"}} {
				_, err := fc.CreateLabel(ctx, forge.RepoScope(sc.org, r), l)
				Expect(err).NotTo(HaveOccurred())
			}
		}
		// Settings, topics and a collaborator of web go into its Repository.
		_, err = fc.EditRepo(ctx, sc.org, "web", forge.EditRepoOption{Description: ptr("the site"), HasWiki: ptr(false),
			DefaultMergeStyle: ptr("squash"), HasPullRequests: ptr(true)})
		Expect(err).NotTo(HaveOccurred())
		Expect(fc.SetRepoTopics(ctx, sc.org, "web", []string{"site", "go"})).To(Succeed())
		collaborator := newUser()
		Expect(fc.SetCollaborator(ctx, sc.org, "web", collaborator, "write")).To(Succeed())
		// A team with units, a member and a repository; Owners holds the token's user.
		team, err := fc.CreateTeam(ctx, sc.org, forge.CreateTeamOption{Name: "Web_Devs", Description: "web people",
			UnitsMap: map[string]string{"repo.code": "write", "repo.issues": "read"}})
		Expect(err).NotTo(HaveOccurred())
		Expect(fc.AddTeamMember(ctx, team.ID, collaborator)).To(Succeed())
		Expect(fc.AddTeamRepo(ctx, team.ID, sc.org, "web")).To(Succeed())
		_, err = fc.CreateHook(ctx, forge.RepoScope(sc.org, "web"), forge.CreateHookOption{Type: "gitea", Active: true,
			Events: []string{"push"}, Config: map[string]string{"url": "https://deploy.example.com/web", "content_type": "json", "secret": hookSecret}})
		Expect(err).NotTo(HaveOccurred())
		// A push mirror with a password: exported without auth (the forge
		// never shows it), so that applying adopts it without a write.
		const mirrorPassword = "export-mirror-token"
		_, err = fc.CreatePushMirror(ctx, sc.org, "web", forge.CreatePushMirrorOption{RemoteAddress: "http://240.0.0.1:9/export/web.git",
			RemoteUsername: "git", RemotePassword: mirrorPassword, Interval: "8h", SyncOnCommit: true})
		Expect(err).NotTo(HaveOccurred())
		// Milestones, one open with a due date, one closed: adopted as they are.
		due := time.Date(2027, 3, 31, 12, 0, 0, 0, time.UTC)
		for _, m := range []forge.CreateMilestoneOption{{Title: "v1.0", Description: "first", DueOn: &due}, {Title: "v0.9", State: "closed"}} {
			_, err = fc.CreateMilestone(ctx, sc.org, "web", m)
			Expect(err).NotTo(HaveOccurred())
		}
		// Branch protection: api and docs hold one rule list (a
		// BranchProtectionSet), web its own (BranchProtections).
		sc.createRepo("docs")
		mainRule := forge.BranchProtection{RuleName: "main", RequiredApprovals: 1, EnableStatusCheck: true,
			StatusCheckContexts: []string{"ci/build", "ci/test"}, BlockOnRejectedReviews: true, ProtectedFilePatterns: "*.lock"}
		for _, r := range []string{"web", "api", "docs"} {
			_, err = fc.CreateBranchProtection(ctx, sc.org, r, mainRule)
			Expect(err).NotTo(HaveOccurred())
		}
		_, err = fc.CreateBranchProtection(ctx, sc.org, "web", forge.BranchProtection{RuleName: "release/*", EnablePush: true,
			EnablePushWhitelist: true, PushWhitelistUsernames: []string{collaborator}, RequiredApprovals: 2})
		Expect(err).NotTo(HaveOccurred())
		// Disabled runners are exported as RunnerSettings; before Gitea 1.26
		// the API cannot disable one, so there are none to export.
		wantRunnerSettings := 0
		repoRunner := registerRunner(forge.RepoScope(sc.org, "web"), "web-runner")
		registerRunner(forge.OrgScope(sc.org), "enabled-runner")
		disabledID := registerRunner(forge.OrgScope(sc.org), "disabled-runner")
		if runnerEditSupported() {
			_, err = fc.EditRunner(ctx, forge.RepoScope(sc.org, "web"), repoRunner, true)
			Expect(err).NotTo(HaveOccurred())
			_, err = fc.EditRunner(ctx, forge.OrgScope(sc.org), disabledID, true)
			Expect(err).NotTo(HaveOccurred())
			wantRunnerSettings = 2
		}

		counter := newWriteCounter(forgeURL)
		ns := newNamespace(counter.srv.URL)

		tokenFile := filepath.Join(GinkgoT().TempDir(), "token")
		Expect(os.WriteFile(tokenFile, []byte(token+"\n"), 0o600)).To(Succeed())
		var out, errOut bytes.Buffer
		code := cmd.Run(ctx, "export", []string{"--url", forgeURL, "--org", sc.org, "-n", ns, "--token-file", tokenFile}, &out, &errOut)
		Expect(code).To(Equal(0), "stderr: %s", errOut.String())
		exported := out.String()
		GinkgoWriter.Println(exported)
		Expect(exported).To(ContainSubstring("server version " + version))
		Expect(exported).NotTo(ContainSubstring(token))
		Expect(exported).NotTo(ContainSubstring(hookSecret))
		Expect(exported).NotTo(ContainSubstring(mirrorPassword))

		objs := decodeStream(exported)
		kinds := map[string]int{}
		for _, o := range objs {
			kinds[o.GetKind()]++
			Expect(o.GetNamespace()).To(Equal(ns))
		}
		want := map[string]int{"Organization": 1, "Repository": 3, "Team": 2, "OrgHook": 2, "Label": 3, "RunnerSetting": wantRunnerSettings,
			"RepoHook": 1, "LabelSet": 1, "BranchProtection": 2, "BranchProtectionSet": 1, "PushMirror": 1, "Milestone": 2}
		if wantRunnerSettings == 0 {
			delete(want, "RunnerSetting")
		}
		Expect(kinds).To(Equal(want))
		Expect(exported).To(ContainSubstring("repository: " + repo))
		Expect(exported).To(ContainSubstring("user: " + collaborator))
		Expect(exported).To(ContainSubstring("defaultMergeStyle: squash"))
		Expect(exported).NotTo(ContainSubstring("init:"))
		Expect(exported).To(ContainSubstring("name: Web_Devs"))
		Expect(exported).To(ContainSubstring("pushWhitelistUsernames:\n  - " + collaborator))

		for _, o := range objs {
			Expect(k8s.Create(ctx, o)).To(Succeed(), "apply %s %s", o.GetKind(), o.GetName())
		}
		for _, o := range objs {
			reason := expectReady(o)
			if !strings.HasSuffix(o.GetKind(), "Set") { // a set reports its members, not one adoption
				Expect(reason).To(Equal("Adopted"), "%s %s", o.GetKind(), o.GetName())
			}
		}
		// Drift checks of adopted objects read and never write.
		Consistently(counter.Writes, 3*syncInterval, poll).Should(BeEmpty())
	})

	It("writes a hook whose URL carries a credential as urlSecretRef; made as its comment says, the Secret lets the hook be adopted without a write", func() {
		sc := newScenario()
		sc.createOrg()
		const ciURL = "https://ci.example.com/build?token=e2e-ci-token-in-the-url"
		h, err := fc.CreateHook(ctx, forge.OrgScope(sc.org), forge.CreateHookOption{Type: "gitea", Active: true, Events: []string{"push"},
			Config: map[string]string{"url": ciURL, "content_type": "json"}})
		Expect(err).NotTo(HaveOccurred())

		counter := newWriteCounter(forgeURL)
		ns := newNamespace(counter.srv.URL)
		tokenFile := filepath.Join(GinkgoT().TempDir(), "token")
		Expect(os.WriteFile(tokenFile, []byte(token+"\n"), 0o600)).To(Succeed())
		var out, errOut bytes.Buffer
		Expect(cmd.Run(ctx, "export", []string{"--url", forgeURL, "--org", sc.org, "-n", ns, "--token-file", tokenFile}, &out, &errOut)).
			To(Equal(0), "stderr: %s", errOut.String())
		exported := out.String()
		GinkgoWriter.Println(exported)
		Expect(exported).NotTo(ContainSubstring("e2e-ci-token-in-the-url"))
		Expect(exported).To(ContainSubstring("kubectl create secret generic"))

		var hook *unstructured.Unstructured
		for _, o := range decodeStream(exported) {
			if o.GetKind() == "OrgHook" {
				hook = o
			}
		}
		Expect(hook).NotTo(BeNil())
		ref, _, _ := unstructured.NestedStringMap(hook.Object, "spec", "urlSecretRef")
		Expect(ref).To(HaveKeyWithValue("key", "url"))
		putSecret(ns, ref["name"], "url", ciURL)
		Expect(k8s.Create(ctx, hook)).To(Succeed())
		Expect(expectReady(hook)).To(Equal("Adopted"))
		Expect(hook.Object["status"]).To(HaveKeyWithValue("id", BeNumerically("==", h.ID)))
		Consistently(counter.Writes, 3*syncInterval, poll).Should(BeEmpty())
	})
})

// decodeStream reads a YAML stream into objects, as kubectl apply -f does.
func decodeStream(stream string) []*unstructured.Unstructured {
	GinkgoHelper()
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewBufferString(stream), 4096)
	var objs []*unstructured.Unstructured
	for {
		var m map[string]any
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			return objs
		}
		Expect(err).NotTo(HaveOccurred())
		if len(m) > 0 {
			objs = append(objs, &unstructured.Unstructured{Object: m})
		}
	}
}
