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

package bench

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
)

// What a run records (the forge calls and the Kubernetes requests it made)
// and the figures printed from them.

// call is one request the fake forge served, and the User-Agent that
// sent it (a shard's manager says its shard there).
type call struct {
	at           time.Time
	method, path string
	agent        string
}

// recorder holds the forge calls and Kubernetes requests of a run.
type recorder struct {
	mu    sync.Mutex
	forge []call
	kube  map[string]int // "verb resource" -> count
}

func (r *recorder) addForge(c call) {
	r.mu.Lock()
	r.forge = append(r.forge, c)
	r.mu.Unlock()
}

func (r *recorder) snapshot() ([]call, map[string]int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	kube := make(map[string]int, len(r.kube))
	for k, v := range r.kube {
		kube[k] = v
	}
	return slices.Clone(r.forge), kube
}

func (r *recorder) reset() {
	r.mu.Lock()
	r.forge, r.kube = nil, map[string]int{}
	r.mu.Unlock()
}

// kubeTransport counts the manager's requests to the API server by verb and
// resource: writes of the forge kinds and of the shards' per-server
// Leases (their handover record; the renewals of a manager's
// leader-election Lease are not counted, its one create is), uncached
// Secret reads, and every read but watches (kubeReads).
type kubeTransport struct {
	rec  *recorder
	next http.RoundTripper
}

var (
	forgeResource = regexp.MustCompile(`^/apis/forge\.forgeops\.dev/v1beta1/namespaces/[^/]+/([a-z]+)(/[^/?]+)?(/status)?`)
	leaseResource = regexp.MustCompile(`^/apis/coordination\.k8s\.io/v1/namespaces/[^/]+/leases(/forge-operator-server-[^/?]*)?$`)
)

// kubeReads is the recorder's key of every GET but watches: lists and
// gets, cached or not (a cache lists once, then watches).
const kubeReads = "GET (every read but watches)"

// shardLabelPatches is the recorder's key of the PATCHes that set a
// resource's shard label (docs/shards.md), counted among the writes of
// their kind too: writes() leaves it out.
const shardLabelPatches = "(of the PATCHes) setting the shard label"

// setsShardLabel is whether req is a PATCH whose body names the shard
// label; it puts the body back for the request to send.
func setsShardLabel(req *http.Request) bool {
	if req.Method != http.MethodPatch || req.Body == nil {
		return false
	}
	body, err := io.ReadAll(req.Body)
	_ = req.Body.Close()
	req.Body = io.NopCloser(bytes.NewReader(body))
	return err == nil && bytes.Contains(body, []byte(`"`+forgev1.ShardLabel+`"`))
}

func (t kubeTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	var keys []string
	if req.Method == http.MethodGet {
		if req.URL.Query().Get("watch") != "true" {
			keys = append(keys, kubeReads)
		}
		if strings.Contains(req.URL.Path, "/secrets/") {
			keys = append(keys, "GET secret (uncached)")
		}
	} else if m := forgeResource.FindStringSubmatch(req.URL.Path); m != nil {
		keys = append(keys, req.Method+" "+m[1]+m[3])
		if setsShardLabel(req) {
			keys = append(keys, shardLabelPatches)
		}
	} else if leaseResource.MatchString(req.URL.Path) {
		keys = append(keys, req.Method+" leases")
	}
	if len(keys) > 0 {
		t.rec.mu.Lock()
		for _, k := range keys {
			t.rec.kube[k]++
		}
		t.rec.mu.Unlock()
	}
	return t.next.RoundTrip(req)
}

var idSegment = regexp.MustCompile(`/[0-9]+(/|$)`)

// route turns a path into its template: names and ids replaced.
func route(c call) string {
	p := idSegment.ReplaceAllString(c.path, "/{id}$1")
	parts := strings.Split(p, "/")
	for i := 1; i < len(parts); i++ {
		switch parts[i-1] {
		case "orgs":
			parts[i] = "{org}"
		case "members", "collaborators", "users":
			parts[i] = "{user}"
		case "repos":
			parts[i] = "{owner}"
			if i+1 < len(parts) {
				parts[i+1] = "{repo}"
			}
		}
	}
	return c.method + " " + strings.Join(parts, "/")
}

func printRoutes(calls []call, n int) {
	count := map[string]int{}
	for _, c := range calls {
		count[route(c)]++
	}
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range count {
			if !yield(k) {
				return
			}
		}
	})
	for _, k := range keys {
		fmt.Printf("    %-52s %6d  (%.2f per object)\n", k, count[k], float64(count[k])/float64(n))
	}
}

func printKube(kube map[string]int) {
	keys := slices.Sorted(func(yield func(string) bool) {
		for k := range kube {
			if !yield(k) {
				return
			}
		}
	})
	for _, k := range keys {
		fmt.Printf("    kube %-47s %6d\n", k, kube[k])
	}
}

func reads(calls []call) int {
	n := 0
	for _, c := range calls {
		if c.method == http.MethodGet {
			n++
		}
	}
	return n
}

func writes(kube map[string]int) int {
	n := 0
	for k, v := range kube {
		if !strings.HasPrefix(k, "GET ") && k != shardLabelPatches {
			n += v
		}
	}
	return n
}

// largestGap is the longest time between two reads of one path at rest
// (from the end of convergence to its first read, then between reads), in seconds.
func largestGap(calls []call, from time.Time) float64 {
	last := map[string]time.Time{}
	gap := 0.0
	for _, c := range calls {
		if c.method != http.MethodGet {
			continue
		}
		prev, ok := last[c.path]
		if !ok {
			prev = from
		}
		gap = max(gap, c.at.Sub(prev).Seconds())
		last[c.path] = c.at
	}
	return gap
}

// resetPeakRSS returns what earlier runs in this process left to the
// system and restarts the high-water mark, so that each run's peak RSS is
// its own (Linux: writing 5 to clear_refs resets VmHWM).
func resetPeakRSS() {
	debug.FreeOSMemory()
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}

// peakRSS is the benchmark process's high-water resident set (VmHWM).
func peakRSS() uint64 { return procStatusKB(os.Getpid(), "VmHWM:") << 10 }

func effectiveQPS(qps float64) float64 {
	if qps > 0 {
		return qps
	}
	return 10
}

func qpsText(qps float64) string {
	if qps > 0 {
		return strconv.FormatFloat(qps, 'f', -1, 64)
	}
	return "10 (default)"
}
