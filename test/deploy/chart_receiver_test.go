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
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/labels"
)

// TestChartReceiver: the receiver value runs the default manager with
// --receiver-bind-address, puts a Service (and, asked, an Ingress to
// /hook/) in front of its Pods only, and the NetworkPolicy admits its port
// from receiverFrom; off by default, none of it.
func TestChartReceiver(t *testing.T) {
	def := renderChart(t)
	if n := len(def.ofKind("Ingress")); n != 0 {
		t.Errorf("%d Ingresses with the default values, want none", n)
	}
	for _, o := range def.ofKind("Service") {
		var s corev1.Service
		decode(t, o, &s)
		if s.Name == "forge-operator-receiver" {
			t.Errorf("a receiver Service with the default values")
		}
	}

	objs := renderChart(t, "-f", valuesFile(t, networkValues+`
  receiverFrom:
    - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: ingress-nginx}}
receiver:
  enabled: true
  port: 9091
  ingress: {enabled: true, className: nginx, host: forge-operator.example.com}
`), "--set", "shards={eu-1}")
	var svc corev1.Service
	objs.named(t, "Service", "forge-operator-receiver", &svc)
	if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].Port != 9091 || svc.Spec.Ports[0].TargetPort.String() != "receiver" {
		t.Errorf("receiver Service ports %+v, want 9091 to the container port receiver", svc.Spec.Ports)
	}
	sel := labels.SelectorFromSet(svc.Spec.Selector)
	for _, o := range objs.ofKind("Deployment") {
		var dep appsv1.Deployment
		decode(t, o, &dep)
		shard := dep.Spec.Template.Labels["forge.forgeops.dev/shard-manager"] != ""
		if sel.Matches(labels.Set(dep.Spec.Template.Labels)) == shard {
			t.Errorf("the receiver Service selects %s: %v (a shard's manager: %v); want the default manager's Pods only", dep.Name, sel.Matches(labels.Set(dep.Spec.Template.Labels)), shard)
		}
	}
	var ing networkingv1.Ingress
	objs.named(t, "Ingress", "forge-operator-receiver", &ing)
	if len(ing.Spec.Rules) != 1 || ing.Spec.Rules[0].Host != "forge-operator.example.com" ||
		ing.Spec.Rules[0].HTTP.Paths[0].Path != "/hook/" || ing.Spec.Rules[0].HTTP.Paths[0].Backend.Service.Name != "forge-operator-receiver" {
		t.Errorf("receiver Ingress %+v", ing.Spec)
	}
	var np networkingv1.NetworkPolicy
	objs.one(t, "NetworkPolicy", &np)
	var admitted *networkingv1.NetworkPolicyIngressRule
	for i, r := range np.Spec.Ingress {
		if len(r.Ports) == 1 && r.Ports[0].Port.String() == "receiver" {
			admitted = &np.Spec.Ingress[i]
		}
	}
	if admitted == nil || len(admitted.From) != 1 || admitted.From[0].NamespaceSelector == nil ||
		admitted.From[0].NamespaceSelector.MatchLabels["kubernetes.io/metadata.name"] != "ingress-nginx" {
		t.Errorf("NetworkPolicy ingress %+v: want the receiver port from the ingress-nginx namespace", np.Spec.Ingress)
	}
}
