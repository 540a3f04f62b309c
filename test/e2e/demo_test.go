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

// Package e2e runs the operator's main job as a user runs it: the demo,
// end to end, in a process of its own.
package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/forgeops/forge-operator/internal/testenv"
)

// TestDemoOnce runs `go run ./hack/demo --once` (what `DEMO_ONCE=1 make demo`
// runs) and checks what a person watching it would: it ends with exit code
// 0, every sample Ready with a forge id, the drift corrected with its Event,
// a kubeconfig written, and no secret printed.
func TestDemoOnce(t *testing.T) {
	assets, err := testenv.Assets()
	if err != nil {
		t.Fatal(err)
	}
	root := testenv.RepoRoot()
	out := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()

	bin := filepath.Join(out, "demo")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, "./hack/demo")
	build.Dir = root
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the demo: %v\n%s", err, b)
	}

	cmd := exec.CommandContext(ctx, bin, "--once", "--out", out, "--forge-addr", "127.0.0.1:0", "--sync-interval", "3s")
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "KUBEBUILDER_ASSETS="+assets)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	text := stdout.String()
	t.Log(text)
	if err != nil {
		t.Fatalf("demo --once failed: %v\nstderr:\n%s", err, stderr.String())
	}

	// The demo applies config/samples: one table row per sample, every kind
	// of the samples in it.
	samples, err := testenv.Samples()
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]bool{}
	for _, s := range samples {
		kinds[s.Object.GetKind()] = true
	}
	for _, want := range []string{
		fmt.Sprintf("%d/%d Ready", len(samples), len(samples)),
		"what the cluster holds",
		"what the forge now holds",
		"corrected after",
		"Event Normal DriftCorrected on Label acme-kind-bug",
		"renamed in place: label id",
		"Event Normal Updated on LabelSet acme-standard-labels: 2 repositories: created 1, renamed 1 labels",
		"labels of repository acme/sandbox-play: none",
		"forge_drift_corrections_total{kind=\"Label\"}",
		"done (--once)",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("demo output lacks %q", want)
		}
	}
	// Every row of the table is Ready with a forge id (a set: repositories in
	// sync; an object the forge addresses by name: name:<its name>).
	table := text[strings.Index(text, "KIND"):strings.Index(text, "what the forge now holds")]
	rows := 0
	for _, line := range strings.Split(table, "\n") {
		f := strings.Fields(line)
		if len(f) != 5 || f[0] == "KIND" {
			continue
		}
		rows++
		if f[2] != "True" || f[4] == "0" {
			t.Errorf("not Ready with a forge id: %s", line)
		}
	}
	if rows != len(samples) {
		t.Errorf("table has %d rows, want one per sample, %d", rows, len(samples))
	}
	for kind := range kinds {
		if !strings.Contains(table, kind+" ") {
			t.Errorf("table lacks a %s", kind)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "kubeconfig")); err != nil {
		t.Errorf("no kubeconfig written: %v", err)
	}
	// The demo's Secrets never reach its output or the manager's log.
	// Applied together, the samples wait for each other (the protections
	// for the Team naming web-developers): while they converge, none is
	// refused by the forge or stalled.
	for _, line := range strings.Split(text, "\n") {
		if strings.Contains(line, "Ready; waiting:") && strings.Contains(line, "Rejected") {
			t.Errorf("a sample was refused while the samples converged: %s", line)
		}
	}
	log, _ := os.ReadFile(filepath.Join(out, "manager.log"))
	for _, secret := range []string{"demo-webhook-signing-secret", "services/T0000/B0000/demo"} {
		if strings.Contains(text, secret) || strings.Contains(string(log), secret) {
			t.Errorf("secret %q printed", secret)
		}
	}
}
