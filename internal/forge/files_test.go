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

package forge

import "testing"

// TestBlobID: git's own ids (git hash-object, in a repository of each
// object format), so that a file is compared without being downloaded.
func TestBlobID(t *testing.T) {
	for _, c := range []struct{ content, format, want string }{
		{"hello\n", "", "ce013625030ba8dba906f756967f9e9ca394464a"},
		{"hello\n", "sha1", "ce013625030ba8dba906f756967f9e9ca394464a"},
		{"", "sha1", "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"},
		{"hello\n", ObjectFormatSHA256, "2cf8d83d9ee29543b34a87727421fdecb7e3f3a183d337639025de576db9ebb4"},
		{"", ObjectFormatSHA256, "473a0f4c3be8a93681a267e3b1e9a7dcda1185436fe141f7749120a303721813"},
	} {
		if got := BlobID([]byte(c.content), c.format); got != c.want {
			t.Errorf("BlobID(%q, %q) = %s, want %s", c.content, c.format, got, c.want)
		}
	}
}
