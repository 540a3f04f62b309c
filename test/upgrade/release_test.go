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

package upgrade

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/forgeops/forge-operator/internal/testenv"
)

// firstV1beta1File is the file whose first commit brought v1beta1: its
// parent is the last commit of main that served v1alpha1 alone.
const firstV1beta1File = "api/v1beta1/groupversion_info.go"

// release is a checkout of one commit and its manager, built from it.
type release struct {
	commit  string
	dir     string // the commit's files (the checkout root for the working tree)
	manager string // its manager binary
}

// oldCommit finds the last v1alpha1-only commit in the repository's
// history: the parent of the commit that added firstV1beta1File.
func oldCommit(t *testing.T) string {
	t.Helper()
	root := testenv.RepoRoot()
	git := func(args ...string) (string, error) {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, stderr.String())
		}
		return strings.TrimSpace(string(out)), nil
	}
	if shallow, err := git("rev-parse", "--is-shallow-repository"); err != nil {
		t.Fatalf("the upgrade test needs the checkout's git history: %v", err)
	} else if shallow == "true" {
		t.Fatalf("the checkout is a shallow clone: the upgrade test needs the history back to the last v1alpha1-only commit (git fetch --unshallow)")
	}
	added, err := git("log", "--diff-filter=A", "--format=%H", "--", firstV1beta1File)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Fields(added)
	if len(lines) == 0 {
		t.Fatalf("no commit in the history adds %s: cannot find the last v1alpha1-only commit", firstV1beta1File)
	}
	parent, err := git("rev-parse", "--verify", lines[len(lines)-1]+"^")
	if err != nil {
		t.Fatalf("the parent of %s, which added %s, is not in the history: %v", lines[len(lines)-1], firstV1beta1File, err)
	}
	return parent
}

// checkout writes the files of commit into dir (git archive, so that the
// repository gets no worktree to clean up; dir goes with the test).
func checkout(t *testing.T, commit, dir string) {
	t.Helper()
	archive := exec.Command("git", "archive", "--format=tar", commit)
	archive.Dir = testenv.RepoRoot()
	tar := exec.Command("tar", "-x", "-C", dir)
	pipe, err := archive.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	tar.Stdin = pipe
	var archiveErr, tarErr bytes.Buffer
	archive.Stderr, tar.Stderr = &archiveErr, &tarErr
	if err := tar.Start(); err != nil {
		t.Fatal(err)
	}
	if err := archive.Run(); err != nil {
		t.Fatalf("git archive %s: %v: %s", commit, err, archiveErr.String())
	}
	if err := tar.Wait(); err != nil {
		t.Fatalf("tar -x of git archive %s: %v: %s", commit, err, tarErr.String())
	}
}

// buildManager builds the manager of the module in dir into out. With
// -trimpath, Go's build cache keys no package by its directory, so the old
// commit's packages built into a fresh temporary directory reuse an
// earlier run's objects; cold, on a busy two-core machine, building the
// old manager takes several minutes (the test's timeout allows for it).
func buildManager(ctx context.Context, t *testing.T, dir, out string) {
	t.Helper()
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-o", out, ".")
	cmd.Dir = dir
	// The old commit builds with its own go.mod; no workspace of the
	// caller's may change that.
	cmd.Env = append(os.Environ(), "GOWORK=off")
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build the manager in %s: %v\n%s", dir, err, b)
	}
}

// process is a manager running as a process of its own, as in a Pod.
type process struct {
	name string
	cmd  *exec.Cmd
	log  string
	// done is closed once the process ended, err then says how.
	done chan struct{}
	err  error
}

// startManager runs bin against the API server of kubeconfig, with the
// flags a test needs: no metrics or probe endpoints, loopback forges
// allowed (the fake listens there), the receiver on a free loopback port
// (without one every Receiver is Stalled), a short sync interval so that
// every object is checked again within the test, and the operator's
// namespace from POD_NAMESPACE, as the Deployment sets it. Its log goes to
// a file the test shows when it fails.
func startManager(t *testing.T, name, bin, kubeconfig string) *process {
	t.Helper()
	log := filepath.Join(t.TempDir(), name+".log")
	f, err := os.Create(log)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin,
		"--kubeconfig="+kubeconfig,
		"--metrics-bind-address=0",
		"--health-probe-bind-address=0",
		"--receiver-bind-address=127.0.0.1:0",
		"--forge-deny-cidrs=",
		"--sync-interval="+syncInterval.String(),
		"--zap-log-level=info",
	)
	cmd.Env = append(os.Environ(), "POD_NAMESPACE="+operatorNamespace)
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		_ = f.Close()
		t.Fatalf("start the %s: %v", name, err)
	}
	p := &process{name: name, cmd: cmd, log: log, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		_ = f.Close()
		close(p.done)
	}()
	t.Cleanup(func() {
		p.stop(t)
		if t.Failed() {
			p.showErrors(t)
		}
	})
	return p
}

// stop ends the manager as the kubelet ends a Pod: SIGTERM, then SIGKILL
// after a grace period. Stopping twice is stopping once.
func (p *process) stop(t *testing.T) {
	t.Helper()
	if done, _ := p.exited(); done {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(30 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
		t.Errorf("the %s did not stop within 30s of SIGTERM", p.name)
	}
}

// exited reports whether the manager ended by itself (it never should
// while the test runs), and how.
func (p *process) exited() (bool, error) {
	select {
	case <-p.done:
		return true, p.err
	default:
		return false, nil
	}
}

// showErrors logs the manager's error lines (at most 40): the log holds no
// secret value (the operator never logs one), and the info lines would
// bury the cause.
func (p *process) showErrors(t *testing.T) {
	t.Helper()
	f, err := os.Open(p.log)
	if err != nil {
		return
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64*1024), 1024*1024)
	for sc.Scan() {
		if l := sc.Text(); strings.Contains(l, `"level":"error"`) || strings.Contains(l, "panic") {
			lines = append(lines, l)
		}
	}
	if len(lines) > 40 {
		lines = lines[len(lines)-40:]
	}
	t.Logf("the %s's errors (%s):\n%s", p.name, p.log, strings.Join(lines, "\n"))
}
