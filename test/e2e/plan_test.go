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
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/forgeops/forge-operator/cmd"
	"github.com/forgeops/forge-operator/internal/forge"
)

var _ = Describe("forge-operator plan", func() {
	ctx := context.Background()

	It("tells what applying the manifests would change, and after they are applied that nothing would, without a write to the forge", func() {
		sc := newScenario()
		_, err := fc.CreateOrg(ctx, forge.CreateOrgOption{Name: sc.org, Description: "before"})
		Expect(err).NotTo(HaveOccurred())
		repo := sc.createRepo("web")
		_, err = fc.CreateLabel(ctx, forge.OrgScope(sc.org), forge.CreateLabelOption{Name: "bug", Color: "#ff0000"})
		Expect(err).NotTo(HaveOccurred())
		_, err = fc.CreateHook(ctx, forge.OrgScope(sc.org), forge.CreateHookOption{Type: "gitea", Active: true, Events: []string{"push"},
			Config: map[string]string{"url": "https://ci.example.com/" + sc.org, "content_type": "json"}})
		Expect(err).NotTo(HaveOccurred())
		registerRunner(forge.OrgScope(sc.org), "r1")
		_, err = fc.CreateMilestone(ctx, sc.org, "web", forge.CreateMilestoneOption{Title: "v1.0"})
		Expect(err).NotTo(HaveOccurred())
		const hookSecret = "plan-e2e-hook-secret-value"
		putSecret(sc.ns, "hook", "secret", hookSecret)

		manifests := fmt.Sprintf(`apiVersion: forge.forgeops.dev/v1beta1
kind: Organization
metadata: {name: org}
spec: {forgeRef: {name: gitea}, name: %[1]s, description: after}
---
apiVersion: forge.forgeops.dev/v1beta1
kind: Label
metadata: {name: bug}
spec: {forgeRef: {name: gitea}, organization: %[1]s, color: "#FF0000"}
---
apiVersion: forge.forgeops.dev/v1beta1
kind: Label
metadata: {name: feature}
spec: {forgeRef: {name: gitea}, repository: %[2]s, color: "#00ff00"}
---
apiVersion: forge.forgeops.dev/v1beta1
kind: Milestone
metadata: {name: v1}
spec: {forgeRef: {name: gitea}, repository: %[2]s, title: v1.0, state: closed}
---
apiVersion: forge.forgeops.dev/v1beta1
kind: OrgHook
metadata: {name: ci}
spec: {forgeRef: {name: gitea}, organization: %[1]s, type: gitea, url: "https://ci.example.com/%[1]s"}
---
apiVersion: forge.forgeops.dev/v1beta1
kind: OrgHook
metadata: {name: signed}
spec:
  forgeRef: {name: gitea}
  organization: %[1]s
  type: gitea
  url: "https://signed.example.com/%[1]s"
  secretRef: {name: hook, key: secret}
  events: [push, release]
`, sc.org, repo)
		// Before Gitea 1.26 a runner cannot be disabled through the API (the
		// RunnerSetting is Unsupported there, see the kinds suite): the plan
		// runs without one.
		runners := runnerEditSupported()
		if runners {
			manifests += fmt.Sprintf(`---
apiVersion: forge.forgeops.dev/v1beta1
kind: RunnerSetting
metadata: {name: r1}
spec: {forgeRef: {name: gitea}, organization: %[1]s, runner: {name: r1}, disabled: true}
`, sc.org)
		}
		runnerPlan := func(lines, without string) string {
			if runners {
				return lines
			}
			return without
		}

		counter := newWriteCounter(forgeURL)
		tokenFile := filepath.Join(GinkgoT().TempDir(), "token")
		Expect(os.WriteFile(tokenFile, []byte(token+"\n"), 0o600)).To(Succeed())
		planCmd := func(extra ...string) (int, string) {
			GinkgoHelper()
			var out, errOut bytes.Buffer
			args := append([]string{"--url", counter.srv.URL, "--token-file", tokenFile, "-f", "-", "-n", sc.ns}, extra...)
			code := cmd.RunWithInput(ctx, "plan", args, strings.NewReader(manifests), &out, &errOut)
			GinkgoWriter.Println(out.String(), errOut.String())
			Expect(out.String() + errOut.String()).NotTo(ContainSubstring(token))
			Expect(out.String() + errOut.String()).NotTo(ContainSubstring(hookSecret))
			Expect(counter.Writes()).To(BeEmpty(), "plan wrote to the forge")
			return code, out.String()
		}

		By("planning before anything is applied")
		code, out := planCmd()
		Expect(out).To(Equal(fmt.Sprintf(`Label %[1]s/bug: in sync
Label %[1]s/feature: create
Milestone %[1]s/v1: update
  state: "open" -> "closed"
OrgHook %[1]s/ci: in sync
OrgHook %[1]s/signed: create
Organization %[1]s/org: update
  description: "before" -> "after"
`, sc.ns) + runnerPlan(fmt.Sprintf(`RunnerSetting %[1]s/r1: update
  disabled: false -> true
Plan: 2 create, 3 update, 2 in sync.
`, sc.ns), "Plan: 2 create, 2 update, 2 in sync.\n")))
		Expect(code).To(Equal(2))

		By("applying the manifests")
		objs := decodeStream(manifests)
		for _, o := range objs {
			o.SetNamespace(sc.ns)
			Expect(k8s.Create(ctx, o)).To(Succeed(), "apply %s %s", o.GetKind(), o.GetName())
		}
		for _, o := range objs {
			expectReady(o)
		}

		By("planning again with read access to the namespace: nothing would change")
		kubeconfig := planReaderKubeconfig(sc.ns, "organizations", "labels", "milestones", "orghooks", "runnersettings")
		code, out = planCmd("--kubeconfig", kubeconfig)
		Expect(out).To(Equal(fmt.Sprintf(`Label %[1]s/bug: in sync
Label %[1]s/feature: in sync
Milestone %[1]s/v1: in sync
OrgHook %[1]s/ci: in sync
OrgHook %[1]s/signed: in sync
Organization %[1]s/org: in sync
`, sc.ns) + runnerPlan(fmt.Sprintf(`RunnerSetting %[1]s/r1: in sync
Plan: 7 in sync.
`, sc.ns), "Plan: 6 in sync.\n")))
		Expect(code).To(Equal(0))

		By("planning the hook with its secret from another Secret: compared by value, never printed")
		// Manifests not applied, so the operator does not race the plan.
		putSecret(sc.ns, "hook-copy", "secret", hookSecret)
		putSecret(sc.ns, "hook-rotated", "secret", hookSecret+"-rotated")
		for _, c := range []struct {
			secret, want string
			code         int
		}{
			{secret: "hook-copy", want: `"action": "in sync"`, code: 0},
			{secret: "hook-rotated", want: `"action": "replace",
      "reason": "secret cannot be changed in place"`, code: 2},
		} {
			applied := manifests
			manifests = strings.Replace(manifests, "secretRef: {name: hook,", "secretRef: {name: "+c.secret+",", 1)
			code, out = planCmd("--kubeconfig", kubeconfig, "-o", "json")
			manifests = applied
			Expect(out).To(ContainSubstring(`"name": "signed",
      `+c.want), "secretRef %s", c.secret)
			Expect(out).NotTo(ContainSubstring("rotated"))
			Expect(code).To(Equal(c.code), "secretRef %s", c.secret)
		}
	})

	It("plans Actions secrets by the digest of what was sent: unknown without the cluster, update only when the Secret's value differs", func() {
		sc := newScenario()
		sc.createOrg()
		repo := sc.createRepo("web")
		const value, rotated = "plan-actions-token-value", "plan-actions-token-rotated"
		putSecret(sc.ns, "ci-values", "token", value)
		putSecret(sc.ns, "ci-copy", "token", value)
		putSecret(sc.ns, "ci-rotated", "token", rotated)
		manifests := fmt.Sprintf(`apiVersion: forge.forgeops.dev/v1beta1
kind: ActionsSecret
metadata: {name: deploy-token}
spec:
  forgeRef: {name: gitea}
  repository: %[2]s
  valueFrom: {secretKeyRef: {name: ci-values, key: token}}
---
apiVersion: forge.forgeops.dev/v1beta1
kind: ActionsVariable
metadata: {name: go-version}
spec: {forgeRef: {name: gitea}, organization: %[1]s, value: "1.26"}
`, sc.org, repo)
		counter := newWriteCounter(forgeURL)
		tokenFile := filepath.Join(GinkgoT().TempDir(), "token")
		Expect(os.WriteFile(tokenFile, []byte(token+"\n"), 0o600)).To(Succeed())
		planCmd := func(manifests string, extra ...string) (int, string) {
			GinkgoHelper()
			var out, errOut bytes.Buffer
			args := append([]string{"--url", counter.srv.URL, "--token-file", tokenFile, "-f", "-", "-n", sc.ns}, extra...)
			code := cmd.RunWithInput(ctx, "plan", args, strings.NewReader(manifests), &out, &errOut)
			GinkgoWriter.Println(out.String(), errOut.String())
			for _, v := range []string{value, rotated, base64.StdEncoding.EncodeToString([]byte(value)), base64.StdEncoding.EncodeToString([]byte(rotated))} {
				Expect(out.String() + errOut.String()).NotTo(ContainSubstring(v))
			}
			Expect(counter.Writes()).To(BeEmpty(), "plan wrote to the forge")
			return code, out.String()
		}

		code, out := planCmd(manifests)
		Expect(out).To(Equal(fmt.Sprintf("ActionsSecret %[1]s/deploy-token: create\nActionsVariable %[1]s/go-version: create\nPlan: 2 create.\n", sc.ns)))
		Expect(code).To(Equal(2))

		objs := decodeStream(manifests)
		for _, o := range objs {
			o.SetNamespace(sc.ns)
			Expect(k8s.Create(ctx, o)).To(Succeed(), "apply %s %s", o.GetKind(), o.GetName())
		}
		for _, o := range objs {
			expectReady(o)
		}

		By("without the cluster a secret's value cannot be compared")
		_, out = planCmd(manifests)
		Expect(out).To(HavePrefix(fmt.Sprintf("ActionsSecret %[1]s/deploy-token: unknown", sc.ns)))
		Expect(out).To(ContainSubstring(fmt.Sprintf("ActionsVariable %s/go-version: in sync\n", sc.ns)))

		By("with the cluster: in sync, and an update only for a Secret of another value")
		kubeconfig := planReaderKubeconfig(sc.ns, "actionssecrets", "actionsvariables")
		code, out = planCmd(manifests, "--kubeconfig", kubeconfig)
		Expect(out).To(Equal(fmt.Sprintf("ActionsSecret %[1]s/deploy-token: in sync\nActionsVariable %[1]s/go-version: in sync\nPlan: 2 in sync.\n", sc.ns)))
		Expect(code).To(Equal(0))
		code, _ = planCmd(strings.Replace(manifests, "name: ci-values,", "name: ci-copy,", 1), "--kubeconfig", kubeconfig)
		Expect(code).To(Equal(0), "the same value from another Secret")
		code, out = planCmd(strings.Replace(manifests, "name: ci-values,", "name: ci-rotated,", 1), "--kubeconfig", kubeconfig)
		Expect(out).To(HavePrefix(fmt.Sprintf("ActionsSecret %[1]s/deploy-token: update\n", sc.ns)))
		Expect(code).To(Equal(2))
	})
})

// planReaderKubeconfig writes a kubeconfig of a user (one per namespace)
// that may get, in namespace ns, Secrets and the operator's resources
// named, and the operator's digest key Secret: what plan --kubeconfig
// needs, and no more.
func planReaderKubeconfig(ns string, resources ...string) string {
	GinkgoHelper()
	name := "plan-reader-" + ns
	user, err := env.AddUser(envtest.User{Name: name}, nil)
	Expect(err).NotTo(HaveOccurred())
	grantRead(ns, name, []string{"secrets"}, "")
	grantRead(ns, name, resources, "forge.forgeops.dev")
	grantRead("forge-operator-system", name, []string{"secrets"}, "")
	kc, err := user.KubeConfig()
	Expect(err).NotTo(HaveOccurred())
	kubeconfig := filepath.Join(GinkgoT().TempDir(), "kubeconfig")
	Expect(os.WriteFile(kubeconfig, kc, 0o600)).To(Succeed())
	return kubeconfig
}

// grantRead lets user get (never change) resources in namespace ns.
func grantRead(ns, user string, resources []string, group string) {
	GinkgoHelper()
	ctx := context.Background()
	name := user + "-" + strings.ReplaceAll(group, ".", "-") + "-" + resources[0]
	Expect(k8s.Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{group}, Resources: resources, Verbs: []string{"get"}}}})).To(Succeed())
	Expect(k8s.Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		RoleRef:  rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "Role", Name: name},
		Subjects: []rbacv1.Subject{{Kind: "User", Name: user, APIGroup: "rbac.authorization.k8s.io"}}})).To(Succeed())
	DeferCleanup(func() {
		_ = k8s.Delete(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}})
		_ = k8s.Delete(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}})
	})
}
