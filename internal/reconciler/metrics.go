package reconciler

import (
	"github.com/prometheus/client_golang/prometheus"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// driftCorrections counts forge objects set back to their spec after a
// change made outside the operator.
var driftCorrections = prometheus.NewCounterVec(prometheus.CounterOpts{
	Name: "forge_drift_corrections_total",
	Help: "Forge objects set back to their spec after a change made outside the operator, by kind.",
}, []string{"kind"})

func init() {
	ctrlmetrics.Registry.MustRegister(driftCorrections)
}
