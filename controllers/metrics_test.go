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

package controllers_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/fakeforge"
	"github.com/forgeops/forge-operator/internal/opsmetrics"
)

// suiteMetrics are the resources' metrics of the suite's manager,
// registered once in controller-runtime's registry as main registers them
// (every start of the suite's manager reads them from its own cache).
var suiteMetrics = opsmetrics.New()

var suiteMetricsOnce = sync.OnceValue(func() string {
	ctrlmetrics.Registry.MustRegister(suiteMetrics)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	defer l.Close()
	return l.Addr().String()
})

// suiteMetricsAddr is where the suite's manager serves its metrics, the
// same address at every start.
func suiteMetricsAddr() string { return suiteMetricsOnce() }

// scrape reads the suite manager's /metrics as the text exposition format
// writes it: each series (`name{label="value",...}`, labels sorted) with
// its value.
func scrape(g Gomega) map[string]float64 {
	resp, err := http.Get("http://" + suiteMetricsAddr() + "/metrics")
	g.Expect(err).NotTo(HaveOccurred())
	defer resp.Body.Close()
	g.Expect(resp.StatusCode).To(Equal(http.StatusOK))
	out := map[string]float64{}
	lines := bufio.NewScanner(resp.Body)
	lines.Buffer(nil, 1<<20)
	for lines.Scan() {
		line := lines.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		g.Expect(err).NotTo(HaveOccurred(), line)
		out[line[:i]] = v
	}
	g.Expect(lines.Err()).NotTo(HaveOccurred())
	return out
}

var _ = Describe("Metrics", func() {
	ctx := context.Background()

	It("serve a RepositorySet's failing repositories from its status: none, one while the forge rejects its topics there, none once it accepts them again; and the Forge's Ready", func() {
		ns := newNamespace()
		_, err := fake.CreateOrg("acme")
		Expect(err).NotTo(HaveOccurred())
		for _, r := range []string{"web", "api"} {
			Expect(fake.CreateRepo("acme", r)).To(Succeed())
		}
		s := &forgev1.RepositorySet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "policy"},
			Spec: forgev1.RepositorySetSpec{
				ManagedSpec:  forgev1.ManagedSpec{ForgeRef: forgev1.ForgeReference{Name: "gitea"}, SyncInterval: every(syncInterval)},
				Repositories: forgev1.RepositorySelector{Organization: ptr(forgev1.OwnerName("acme"))},
				Topics:       []forgev1.Topic{"managed"},
			}}
		Expect(k8s.Create(ctx, s)).To(Succeed())
		expectReady(s)

		set := fmt.Sprintf(`{kind="RepositorySet",name="policy",namespace=%q,organization="acme"}`, ns)
		series := func(name string) func(Gomega) float64 {
			return func(g Gomega) float64 {
				m := scrape(g)
				v, ok := m[name]
				g.Expect(ok).To(BeTrue(), "no series %s", name)
				return v
			}
		}
		Eventually(series("forge_set_repositories"+set), timeout, poll).Should(BeEquivalentTo(2))
		Eventually(series("forge_set_repositories_in_sync"+set), timeout, poll).Should(BeEquivalentTo(2))
		Eventually(series("forge_set_repositories_failing"+set), timeout, poll).Should(BeZero())
		Eventually(series(fmt.Sprintf(`forge_connection_ready{kind="Forge",name="gitea",namespace=%q}`, ns)), timeout, poll).Should(BeEquivalentTo(1))
		Expect(scrape(Default)).To(HaveKey(HavePrefix(`forge_resources{kind="RepositorySet",ready="True",`)))
		Expect(scrape(Default)).To(HaveKey(`forge_last_pass_timestamp_seconds{kind="RepositorySet"}`))

		By("the forge rejects the topics of web, which lost them")
		// The first fault lets the test's own removal through; the
		// operator's writes meet the second.
		fake.InjectFault(fakeforge.Fault{Method: http.MethodPut, Path: "/repos/acme/web/topics"})
		fake.InjectFault(fakeforge.Fault{Method: http.MethodPut, Path: "/repos/acme/web/topics", Count: -1,
			Status: http.StatusUnprocessableEntity, Body: `{"message":"topics rejected"}`})
		Expect(forgeClient().SetRepoTopics(ctx, "acme", "web", nil)).To(Succeed())
		Eventually(series("forge_set_repositories_failing"+set), 5*syncInterval+timeout, poll).Should(BeEquivalentTo(1))
		Expect(series("forge_set_repositories_in_sync" + set)(Default)).To(BeEquivalentTo(1))

		By("the forge accepts them again")
		fake.ClearFaults()
		Eventually(series("forge_set_repositories_failing"+set), 5*syncInterval+timeout, poll).Should(BeZero())
		Eventually(series("forge_set_repositories_in_sync"+set), timeout, poll).Should(BeEquivalentTo(2))

		By("a deleted set has no series left")
		Expect(k8s.Delete(ctx, s)).To(Succeed())
		Eventually(func(g Gomega) map[string]float64 { return scrape(g) }, timeout, poll).ShouldNot(HaveKey("forge_set_repositories" + set))
	})
})
