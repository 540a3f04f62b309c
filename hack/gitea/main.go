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

// Command gitea starts one real Gitea (built by `make gitea`) and runs a
// command against it with FORGE_URL, FORGE_TOKEN, FORGE_USER and
// FORGE_PASSWORD set, then stops the server and removes its work directory,
// also when the command fails or is interrupted. `make test-gitea` runs the
// contract and end-to-end suites through it:
//
//	go run ./hack/gitea -- go test ./internal/forge -run Contract
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"github.com/forgeops/forge-operator/internal/gitea"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: go run ./hack/gitea -- COMMAND [ARGS...]")
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	start := time.Now()
	srv, err := gitea.Start(ctx)
	if err != nil {
		fmt.Fprintf(os.Stderr, "start Gitea: %v\n", err)
		return 1
	}
	defer func() {
		if err := srv.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "stop Gitea: %v\n", err)
		}
	}()
	fmt.Printf("Gitea %s at %s (started in %s)\n", srv.Version, srv.URL, time.Since(start).Round(100*time.Millisecond))

	cmd := exec.Command(args[0], args[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.Env = append(os.Environ(),
		"FORGE_URL="+srv.URL, "FORGE_TOKEN="+srv.Token,
		"FORGE_USER="+gitea.AdminUser, "FORGE_PASSWORD="+gitea.AdminPassword)
	if err := cmd.Start(); err != nil {
		fmt.Fprintf(os.Stderr, "run %s: %v\n", args[0], err)
		return 1
	}
	go func() {
		<-ctx.Done()
		if cmd.Process != nil {
			_ = cmd.Process.Signal(syscall.SIGTERM)
		}
	}()
	err = cmd.Wait()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit):
		fmt.Fprintf(os.Stderr, "Gitea log (end):\n%s\n", srv.Log())
		if code := exit.ExitCode(); code > 0 {
			return code
		}
		return 1
	default:
		fmt.Fprintf(os.Stderr, "run %s: %v\n", args[0], err)
		return 1
	}
}
