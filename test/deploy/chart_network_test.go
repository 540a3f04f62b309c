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
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// networkValues is a values file enabling the NetworkPolicy, for one
// API server address and one forge.
const networkValues = `
networkPolicy:
  enabled: true
  apiServer: {cidrs: [10.0.0.1/32]}
  forges:
    - cidrs: [203.0.113.10/32, 198.51.100.0/24]
      ports: [443, 3000]
    - cidrs: [192.0.2.7/32]
    - cidrs: [0.0.0.0/0]
      except: [169.254.0.0/16, 10.0.0.0/8]
      ports: [80]
`

func valuesFile(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "values.yaml")
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// peerRule is one egress rule as the test reads it: CIDRs (or "pods" for
// a selector) and ports.
func peerRule(r networkingv1.NetworkPolicyEgressRule) string {
	var to, ports []string
	for _, p := range r.To {
		switch {
		case p.IPBlock != nil:
			to = append(to, p.IPBlock.CIDR)
		default:
			to = append(to, "pods")
		}
	}
	for _, p := range r.Ports {
		ports = append(ports, fmt.Sprintf("%s/%s", p.Port.String(), *p.Protocol))
	}
	return strings.Join(to, ",") + " " + strings.Join(ports, ",")
}

// TestChartNetworkPolicy: off by default (config/default has none); on, it
// selects every manager's Pods, lets them reach the API server, DNS and the
// forges listed and nothing else, and lets the metrics port be reached.
func TestChartNetworkPolicy(t *testing.T) {
	if n := len(renderChart(t).ofKind("NetworkPolicy")); n != 0 {
		t.Fatalf("%d NetworkPolicies with the default values, want none", n)
	}

	objs := renderChartWithTests(t, "-f", valuesFile(t, networkValues), "--set", "shards={eu-1}")
	var np networkingv1.NetworkPolicy
	objs.one(t, "NetworkPolicy", &np)
	if np.Namespace != namespace || np.Name != "forge-operator-controller-manager" {
		t.Errorf("NetworkPolicy %s/%s", np.Namespace, np.Name)
	}
	if !slices.Equal(np.Spec.PolicyTypes, []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress}) {
		t.Errorf("policyTypes %v, want Ingress and Egress: without them what is not listed is not denied", np.Spec.PolicyTypes)
	}

	// It selects the Pods of every manager, the default one and the shard's,
	// and not the `helm test` Pod.
	sel, err := metav1.LabelSelectorAsSelector(&np.Spec.PodSelector)
	if err != nil {
		t.Fatal(err)
	}
	deps := objs.ofKind("Deployment")
	if len(deps) != 2 {
		t.Fatalf("%d Deployments, want the default manager and shard eu-1", len(deps))
	}
	var metricsPort int32
	for _, o := range deps {
		var dep appsv1.Deployment
		decode(t, o, &dep)
		if !sel.Matches(labels.Set(dep.Spec.Template.Labels)) {
			t.Errorf("the NetworkPolicy's selector %v does not select the Pods of %s (%v)", sel, dep.Name, dep.Spec.Template.Labels)
		}
		for _, p := range dep.Spec.Template.Spec.Containers[0].Ports {
			if p.Name == "metrics" {
				metricsPort = p.ContainerPort
			}
		}
	}
	if metricsPort == 0 {
		t.Fatal("the manager has no container port named metrics")
	}
	var testPod corev1.Pod
	objs.one(t, "Pod", &testPod)
	if sel.Matches(labels.Set(testPod.Labels)) {
		t.Errorf("the NetworkPolicy selects the helm test Pod %v", testPod.Labels)
	}

	// Egress: the API server, DNS, each forge, in that order, and nothing else.
	var egress []string
	for _, r := range np.Spec.Egress {
		egress = append(egress, peerRule(r))
	}
	want := []string{
		"10.0.0.1/32 443/TCP,6443/TCP",
		"pods 53/UDP,53/TCP",
		"203.0.113.10/32,198.51.100.0/24 443/TCP,3000/TCP",
		"192.0.2.7/32 443/TCP",
		"0.0.0.0/0 80/TCP",
	}
	if !slices.Equal(egress, want) {
		t.Errorf("egress %q, want %q", egress, want)
	}
	if except := np.Spec.Egress[4].To[0].IPBlock.Except; !slices.Equal(except, []string{"169.254.0.0/16", "10.0.0.0/8"}) {
		t.Errorf("the last forge's ipBlock leaves out %v, want its except", except)
	}
	dns := np.Spec.Egress[1].To[0]
	if dns.NamespaceSelector == nil || dns.NamespaceSelector.MatchLabels["kubernetes.io/metadata.name"] != "kube-system" ||
		dns.PodSelector == nil || dns.PodSelector.MatchLabels["k8s-app"] != "kube-dns" {
		t.Errorf("DNS egress to %+v, want kube-dns in kube-system", dns)
	}

	// Ingress: the metrics port, from anywhere when metricsFrom is empty.
	if len(np.Spec.Ingress) != 1 || len(np.Spec.Ingress[0].Ports) != 1 || np.Spec.Ingress[0].Ports[0].Port.String() != "metrics" || len(np.Spec.Ingress[0].From) != 0 {
		t.Fatalf("ingress %+v, want the metrics port from anywhere", np.Spec.Ingress)
	}

	// metricsFrom: those sources, and the helm test Pod, which fetches /metrics.
	np = networkingv1.NetworkPolicy{}
	objs = renderChartWithTests(t, "-f", valuesFile(t, networkValues+`
  metricsFrom:
    - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: monitoring}}
`))
	objs.one(t, "NetworkPolicy", &np)
	from := np.Spec.Ingress[0].From
	if len(from) != 2 || from[0].NamespaceSelector == nil || from[0].NamespaceSelector.MatchLabels["kubernetes.io/metadata.name"] != "monitoring" {
		t.Fatalf("metrics ingress from %+v, want the monitoring namespace and the helm test Pod", from)
	}
	objs.one(t, "Pod", &testPod)
	testSel, err := metav1.LabelSelectorAsSelector(from[1].PodSelector)
	if err != nil || from[1].NamespaceSelector != nil || !testSel.Matches(labels.Set(testPod.Labels)) {
		t.Errorf("metrics ingress from %+v does not admit the helm test Pod %v (%v)", from[1], testPod.Labels, err)
	}
	// Metrics off: no ingress at all (Ingress stays a policy type, so
	// nothing may reach the Pods).
	objs = renderChart(t, "-f", valuesFile(t, networkValues), "--set", "metrics.enabled=false")
	np = networkingv1.NetworkPolicy{}
	objs.one(t, "NetworkPolicy", &np)
	if len(np.Spec.Ingress) != 0 || !slices.Contains(np.Spec.PolicyTypes, networkingv1.PolicyTypeIngress) {
		t.Errorf("metrics off: ingress %+v, policy types %v: want no source admitted", np.Spec.Ingress, np.Spec.PolicyTypes)
	}
}

// TestChartNetworkPolicyNeedsTheAddresses: enabled without the API server's
// or a forge's address, the policy would cut the manager off: the render
// fails and says what to set.
func TestChartNetworkPolicyNeedsTheAddresses(t *testing.T) {
	for _, tc := range []struct {
		values, want string
	}{
		{"networkPolicy: {enabled: true, forges: [{cidrs: [192.0.2.7/32]}]}", "networkPolicy.apiServer.cidrs"},
		{"networkPolicy: {enabled: true, apiServer: {cidrs: [10.0.0.1/32]}}", "networkPolicy.forges"},
		{"networkPolicy: {enabled: true, apiServer: {cidrs: [10.0.0.1/32]}, forges: [{ports: [443]}]}", "networkPolicy.forges[0]"},
	} {
		_, err := helm(t, "template", "forge-operator", chartDir, "-f", valuesFile(t, tc.values))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want a refusal naming %s", tc.values, err, tc.want)
		}
	}
}

// serviceMonitorTLS renders the chart with a ServiceMonitor and args, and
// returns its endpoint's tlsConfig.
func serviceMonitorTLS(t *testing.T, args ...string) map[string]any {
	t.Helper()
	objs := renderChart(t, append([]string{"--set", "metrics.serviceMonitor.enabled=true"}, args...)...)
	sm := objs.asMapNamed(t, "ServiceMonitor", "forge-operator-controller-manager-metrics-monitor")
	endpoint := sm["spec"].(map[string]any)["endpoints"].([]any)[0].(map[string]any)
	tls, _ := endpoint["tlsConfig"].(map[string]any)
	return tls
}

// TestChartServiceMonitorVerifiesTLS: the scrape verifies the metrics
// certificate against the CA given, by the metrics Service's name; skipping
// the check is one explicit value, and a ServiceMonitor that could verify
// nothing (the self-signed certificate, no CA) is refused at render.
func TestChartServiceMonitorVerifiesTLS(t *testing.T) {
	verified := []string{"--set", "metrics.certSecret=metrics-cert",
		"--set", "metrics.serviceMonitor.tlsConfig.ca.secret.name=metrics-cert", "--set", "metrics.serviceMonitor.tlsConfig.ca.secret.key=ca.crt"}
	tls := serviceMonitorTLS(t, verified...)
	if _, skip := tls["insecureSkipVerify"]; skip {
		t.Errorf("tlsConfig %v skips verification by default", tls)
	}
	if fmt.Sprint(tls["ca"]) != "map[secret:map[key:ca.crt name:metrics-cert]]" {
		t.Errorf("tlsConfig %v lacks the CA given", tls)
	}
	if want := "forge-operator-controller-manager-metrics-service." + namespace + ".svc"; tls["serverName"] != want {
		t.Errorf("tlsConfig serverName %v, want the metrics Service's name %s", tls["serverName"], want)
	}
	tls = serviceMonitorTLS(t, append(verified, "--set", "metrics.serviceMonitor.tlsConfig.serverName=metrics.example")...)
	if tls["serverName"] != "metrics.example" {
		t.Errorf("tlsConfig serverName %v, want the one given", tls["serverName"])
	}

	// The opt-in: the self-signed certificate, not verified.
	tls = serviceMonitorTLS(t, "--set", "metrics.serviceMonitor.insecureSkipVerify=true")
	if tls["insecureSkipVerify"] != true {
		t.Errorf("insecureSkipVerify=true: tlsConfig %v", tls)
	}

	for _, tc := range []struct {
		args []string
		want *regexp.Regexp
	}{
		// Verifying, but nothing to verify against: the defaults.
		{nil, regexp.MustCompile(`metrics.certSecret.*insecureSkipVerify=true`)},
		{[]string{"--set", "metrics.certSecret=metrics-cert"}, regexp.MustCompile(`tlsConfig: give the CA.*insecureSkipVerify=true`)},
		// The opt-out is the one value, never a key slipped into tlsConfig.
		{[]string{"--set", "metrics.serviceMonitor.tlsConfig.insecureSkipVerify=true"}, regexp.MustCompile(`use metrics.serviceMonitor.insecureSkipVerify`)},
	} {
		_, err := helm(t, append([]string{"template", "forge-operator", chartDir, "--set", "metrics.serviceMonitor.enabled=true"}, tc.args...)...)
		if err == nil || !tc.want.MatchString(err.Error()) {
			t.Errorf("%v: %v, want a refusal matching %s", tc.args, err, tc.want)
		}
	}

	// Plain HTTP (metrics.secure=false) has no TLS to verify.
	if tls := serviceMonitorTLS(t, "--set", "metrics.secure=false"); tls != nil {
		t.Errorf("metrics.secure=false: tlsConfig %v", tls)
	}
}

// TestManagerSecretVerbsAreThoseTheChartDocuments: the verbs the manager's
// generated role grants on Secrets are exactly those the chart README's
// table explains, none of them patch or delete.
func TestManagerSecretVerbsAreThoseTheChartDocuments(t *testing.T) {
	var granted []string
	for _, r := range generatedManagerRole(t).Rules {
		if slices.Contains(r.APIGroups, "") && slices.Contains(r.Resources, "secrets") {
			if len(r.ResourceNames) != 0 {
				t.Errorf("a rule on Secrets limited to names %v: the table does not say so", r.ResourceNames)
			}
			granted = append(granted, r.Verbs...)
		}
	}
	slices.Sort(granted)

	b, err := os.ReadFile(repoPath(chartDir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(b), "## What the manager may do with Secrets\n")
	if !ok {
		t.Fatal("the chart README has no section \"What the manager may do with Secrets\"")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	var documented []string
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		verbs, _, _ := strings.Cut(strings.TrimPrefix(line, "| "), " |")
		for _, v := range strings.Split(verbs, ",") {
			documented = append(documented, strings.Trim(strings.TrimSpace(v), "`"))
		}
	}
	slices.Sort(documented)
	if !slices.Equal(granted, documented) {
		t.Errorf("the manager's role grants %v on Secrets, the chart README explains %v", granted, documented)
	}
	for _, v := range []string{"patch", "delete", "deletecollection", "*"} {
		if slices.Contains(granted, v) {
			t.Errorf("the manager's role grants %q on Secrets", v)
		}
	}
}
