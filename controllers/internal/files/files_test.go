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

package files

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/forge"
	"github.com/forgeops/forge-operator/internal/reconciler"
)

// TestCompare: a missing file is created, a differing one updated (not
// under CreateOnly), one as wanted counted in sync; a path another
// resource holds, and one whose content could not be read, are left
// alone; a deletion removes only the files the branch holds.
func TestCompare(t *testing.T) {
	entries := func(paths ...string) []forgev1.RepositoryFileEntry {
		out := make([]forgev1.RepositoryFileEntry, len(paths))
		for i, p := range paths {
			out[i] = forgev1.RepositoryFileEntry{Path: forgev1.FilePath(p)}
		}
		return out
	}
	repo := &forge.Repository{Name: "web"}
	blob := func(s string) string { return forge.BlobID([]byte(s), repo.ObjectFormat) }
	listed := map[string]string{"same.txt": blob("same"), "old.txt": blob("old"), "held.txt": blob("x")}
	b := &Branch{Repository: repo, BranchName: "main", FilesSpec: forgev1.FilesSpec{Mode: forgev1.FileModeOverwrite,
		Files: entries("new.txt", "same.txt", "old.txt", "held.txt", "unread.txt")},
		Contents: map[string][]byte{"new.txt": []byte("new"), "same.txt": []byte("same"), "old.txt": []byte("changed"), "held.txt": []byte("y")},
		Held:     map[string]bool{"held.txt": true}}

	changes, present := b.Compare(listed)
	if !present {
		t.Error("the branch holds some of the files: want present")
	}
	if got := reconciler.Fields(changes); !slices.Equal(got, []string{"file new.txt", "file old.txt"}) {
		t.Errorf("changes on %v, want new.txt created and old.txt updated", got)
	}
	if d := b.Diffs(); !slices.Equal(d, []string{`create "new.txt"`, `update "old.txt"`}) {
		t.Errorf("Diffs = %v", d)
	}
	if b.Pending() != 2 || b.Count(forge.FileCreate) != 1 || b.Count(forge.FileUpdate) != 1 || b.InSync != 1 {
		t.Errorf("pending %d, creates %d, updates %d, in sync %d; want 2, 1, 1, 1",
			b.Pending(), b.Count(forge.FileCreate), b.Count(forge.FileUpdate), b.InSync)
	}

	b.Mode = forgev1.FileModeCreateOnly
	b.Compare(listed)
	if d := b.Diffs(); !slices.Equal(d, []string{`create "new.txt"`}) {
		t.Errorf("CreateOnly: Diffs = %v, want only the missing file created", d)
	}

	b.Mode, b.Deleting = forgev1.FileModeOverwrite, true
	if changes, _ := b.Compare(listed); len(changes) != 0 {
		t.Errorf("a deletion shows no changes, got %v", changes)
	}
	if d := b.Diffs(); !slices.Equal(d, []string{`delete "same.txt"`, `delete "old.txt"`}) {
		t.Errorf("deleting: Diffs = %v, want the listed files but the held one deleted", d)
	}
	b.Mode = forgev1.FileModeCreateOnly
	if b.Compare(listed); b.Pending() != 0 {
		t.Errorf("deleting CreateOnly files: %v, want nothing deleted", b.Diffs())
	}
	if _, present := b.Compare(map[string]string{"other.txt": blob("o")}); present {
		t.Error("a branch without any of the files: want not present")
	}
}

// TestPushedOn: a push concerns files kept on its branch, or on the
// default branch when the spec names none; a delivery that tells no
// branch concerns them.
func TestPushedOn(t *testing.T) {
	release := "release"
	for _, tc := range []struct {
		branch *string
		wake   reconciler.Wake
		want   bool
	}{
		{nil, reconciler.Wake{Branch: "main", DefaultBranch: "main"}, true},
		{nil, reconciler.Wake{Branch: "feature", DefaultBranch: "main"}, false},
		{&release, reconciler.Wake{Branch: "release", DefaultBranch: "main"}, true},
		{&release, reconciler.Wake{Branch: "main", DefaultBranch: "main"}, false},
		{nil, reconciler.Wake{Branch: "main"}, true},
	} {
		if got := PushedOn(tc.branch, tc.wake); got != tc.want {
			t.Errorf("PushedOn(%v, %+v) = %v, want %v", tc.branch, tc.wake, got, tc.want)
		}
	}
}

// TestMessage: every commit's message ends with the trailer naming the
// resource, after a blank line, or in the message's own trailer block
// when it ends with one; git reads it as a trailer (interpret-trailers
// parses each message, where git is installed).
func TestMessage(t *testing.T) {
	const by = "FileSet platform/codeowners"
	for _, tc := range []struct{ message, want string }{
		{"chore: files kept by forge-operator", "chore: files kept by forge-operator\n\nKept-by: FileSet platform/codeowners"},
		{"chore: files\n", "chore: files\n\nKept-by: FileSet platform/codeowners"},
		{"chore: files\n\nWhy they are kept.\n", "chore: files\n\nWhy they are kept.\n\nKept-by: FileSet platform/codeowners"},
		{"chore: files\n\nSigned-off-by: Platform <p@example.com>", "chore: files\n\nSigned-off-by: Platform <p@example.com>\nKept-by: FileSet platform/codeowners"},
		{"Signed-off-by: Platform <p@example.com>", "Signed-off-by: Platform <p@example.com>\n\nKept-by: FileSet platform/codeowners"},
		{"chore: files\n\nSee: the platform's guide\nand more", "chore: files\n\nSee: the platform's guide\nand more\n\nKept-by: FileSet platform/codeowners"},
	} {
		got := Message(tc.message, by)
		if got != tc.want {
			t.Errorf("Message(%q) = %q, want %q", tc.message, got, tc.want)
		}
		if trailers, ok := gitTrailers(t, got); ok && !strings.HasSuffix(trailers, "Kept-by: "+by+"\n") {
			t.Errorf("git reads the trailers of %q as %q, want them to end with Kept-by", got, trailers)
		}
	}
	if got := Message("chore: files", ""); got != "chore: files" {
		t.Errorf("without a resource named, Message = %q, want the spec's message", got)
	}
}

// gitTrailers are the trailers git reads in message (not ok: no git).
func gitTrailers(t *testing.T, message string) (string, bool) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		return "", false
	}
	cmd := exec.Command("git", "interpret-trailers", "--parse")
	cmd.Stdin = strings.NewReader(message + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git interpret-trailers: %v", err)
	}
	return string(out), true
}
