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

package testenv

import (
	"context"
	"strings"
	"sync/atomic"

	k8sruntime "k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/forgeops/forge-operator/api/v1alpha1"
	forgev1 "github.com/forgeops/forge-operator/api/v1beta1"
	"github.com/forgeops/forge-operator/internal/manager"
)

// Scheme holds the Kubernetes types and the operator's, as the manager's
// does: for the clients and managers of the test suites.
func Scheme() *k8sruntime.Scheme {
	s := k8sruntime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(forgev1.AddToScheme(s))
	return s
}

// DeprecatedScheme is Scheme with the operator's kinds at the deprecated
// v1alpha1: a client of it writes and reads every object through that
// version (the API server converting), as a user whose manifests still
// say v1alpha1 does.
func DeprecatedScheme() *k8sruntime.Scheme {
	s := k8sruntime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(v1alpha1.AddToScheme(s))
	return s
}

// DeprecationWarnings counts the API server's warnings that a request was
// at v1alpha1 (v1alpha1.DeprecationWarning), and hands every other warning
// to client-go's logger; the rest.Config of a DeprecatedScheme client sets
// it, so that a suite's output is not one warning per request.
type DeprecationWarnings struct {
	n atomic.Int64
}

// HandleWarningHeaderWithContext implements rest.WarningHandlerWithContext.
func (d *DeprecationWarnings) HandleWarningHeaderWithContext(ctx context.Context, code int, agent, text string) {
	if strings.HasPrefix(text, v1alpha1.GroupVersion.String()+" ") && strings.Contains(text, "is deprecated; use "+forgev1.GroupVersion.String()) {
		d.n.Add(1)
		return
	}
	rest.WarningLogger{}.HandleWarningHeaderWithContext(ctx, code, agent, text)
}

// Count is how many requests were answered with the deprecation warning.
func (d *DeprecationWarnings) Count() int64 { return d.n.Load() }

// OperatorNamespace is the operator's namespace in the suites: the secret
// digest key's, and the shards' Leases'.
const OperatorNamespace = "forge-operator-system"

// ManagerOptions are the options of a manager in a test: Scheme, the
// manager's cache options over all namespaces, no metrics or health
// endpoint, and controller names that may repeat (a test
// binary may run several managers). Tests add their cache or leader
// election settings.
func ManagerOptions() ctrl.Options {
	skip := true
	return ctrl.Options{
		Scheme:                 Scheme(),
		Cache:                  manager.CacheOptions(nil, "", OperatorNamespace), // as main's
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Controller:             config.Controller{SkipNameValidation: &skip},
	}
}
