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

// Package testmanager starts the operator's manager for the suites: the
// controllers' envtest specs and those of test/ (kept apart from
// internal/testenv, which is below package controllers and must not import
// it).
package testmanager

import (
	"context"

	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/forgeops/forge-operator/controllers"
)

// Start starts a manager on cfg, with mo, running every controller
// set up with opts as the operator's main does: the one start-up of the
// controllers, end-to-end and fairness suites and the benchmarks. stop
// cancels it and returns what its Start returned, once it has returned.
func Start(cfg *rest.Config, mo ctrl.Options, opts controllers.Options) (stop func() error, err error) {
	mgr, err := ctrl.NewManager(cfg, mo)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	if err := controllers.Setup(ctx, mgr, opts); err != nil {
		cancel()
		return nil, err
	}
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	return func() error {
		cancel()
		return <-done
	}, nil
}
