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

// Command fakeforge runs the in-memory fake forge as a process, for demos
// and manual testing:
//
//	go run ./hack/fakeforge -addr 127.0.0.1:3000 -token T [-user U -password P]
//
// It prints its URL, serves the forge API under /api/v1 and the test
// controls under /_fake/, and stops cleanly on SIGINT or SIGTERM.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/forgeops/forge-operator/internal/fakeforge"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		stop()
		log.SetFlags(0)
		log.Fatalf("fakeforge: %v", err)
	}
}

// run serves until ctx ends (SIGINT/SIGTERM in main), then shuts down
// gracefully. The first line written to out names the URL.
func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("fakeforge", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:3000", "listen address")
	token := fs.String("token", fakeforge.DefaultToken, "token of the site admin")
	user := fs.String("user", "", "basic-auth user name of the site admin (with -password)")
	password := fs.String("password", "", "basic-auth password of the site admin")
	login := fs.String("login", "", "login of the site admin (default "+fakeforge.DefaultLogin+", or -user)")
	version := fs.String("version", fakeforge.DefaultVersion, "version reported by GET /version")
	noProjects := fs.Bool("no-projects", false, "answer like a server without the projects API")
	noRunnerEdit := fs.Bool("no-runner-edit", false, "answer like a server without PATCH .../actions/runners/{id}")
	if err := fs.Parse(args); err != nil {
		return err
	}

	if (*user == "") != (*password == "") {
		return errors.New("-user and -password go together")
	}
	opts := []fakeforge.Option{fakeforge.WithToken(*token), fakeforge.WithVersion(*version)}
	if *user != "" {
		opts = append(opts, fakeforge.WithBasicAuth(*user, *password))
	}
	if *login != "" {
		opts = append(opts, fakeforge.WithLogin(*login))
	}
	if *noProjects {
		opts = append(opts, fakeforge.WithoutProjects())
	}
	if *noRunnerEdit {
		opts = append(opts, fakeforge.WithoutRunnerEdit())
	}
	fake := fakeforge.New(opts...)

	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	url := "http://" + ln.Addr().String()
	fake.SetRoot(url)
	srv := &http.Server{Handler: fake, ReadHeaderTimeout: 10 * time.Second}

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	fmt.Fprintf(out, "fakeforge listening on %s (API %s/api/v1, login %s, version %s)\n", url, url, fake.Login(), *version)

	select {
	case err := <-served:
		return err
	case <-ctx.Done():
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		return err
	}
	fmt.Fprintln(out, "fakeforge stopped")
	return nil
}
