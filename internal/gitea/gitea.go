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

// Package gitea starts a real Gitea server on loopback for the test suites:
// a fresh work directory, SQLite, an admin account and an access token with
// every scope. The binary is the one hack/gitea/build.sh builds from the Go
// module code.gitea.io/gitea (`make gitea`); one configuration serves
// Gitea 1.24 to 1.27.
package gitea

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"text/template"
	"time"
)

// Version is the Gitea release the suites run against when GITEA_VERSION
// does not name another (`make test-gitea-all` runs each supported release).
const Version = "1.27.3"

// Admin account of a started server. The password only guards a throw-away
// server on loopback.
const (
	AdminUser     = "forge-admin"
	AdminPassword = "forge-admin-Passw0rd"
	adminEmail    = "forge-admin@example.com"
)

// Dir is where `make gitea` puts the binary: GITEA_DIR when set, otherwise
// ~/.cache/forge-operator/gitea/<GITEA_VERSION or Version>/.
func Dir() string {
	if d := os.Getenv("GITEA_DIR"); d != "" {
		return d
	}
	version := Version
	if v := os.Getenv("GITEA_VERSION"); v != "" {
		version = v
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache")
	}
	return filepath.Join(cache, "forge-operator", "gitea", version)
}

// Server is a running Gitea.
type Server struct {
	// URL is the server root, e.g. http://127.0.0.1:41234.
	URL string
	// Token is an access token of AdminUser with every scope.
	Token string
	// Version is what GET /api/v1/version answers.
	Version string

	dir  string
	cmd  *exec.Cmd
	done chan struct{}
	err  error
	log  *os.File
}

// Start runs migrate, creates the admin, starts `gitea web` on a free
// loopback port, waits until the API answers and creates a token. On error
// nothing is left running and the work directory is removed.
func Start(ctx context.Context) (_ *Server, err error) {
	dir := Dir()
	bin := filepath.Join(dir, "gitea")
	if _, err := os.Stat(bin); err != nil {
		return nil, fmt.Errorf("no Gitea binary at %s (run `make gitea`): %w", bin, err)
	}
	static, err := os.ReadFile(filepath.Join(dir, "module-dir"))
	if err != nil {
		return nil, fmt.Errorf("no record of Gitea's module directory in %s (run `make gitea`): %w", dir, err)
	}
	work, err := os.MkdirTemp("", "forge-gitea-")
	if err != nil {
		return nil, err
	}
	s := &Server{dir: work}
	defer func() {
		if err != nil {
			_ = s.Stop()
		}
	}()

	port, err := freePort()
	if err != nil {
		return nil, err
	}
	s.URL = "http://127.0.0.1:" + strconv.Itoa(port)
	conf := filepath.Join(work, "app.ini")
	if err := writeConfig(conf, work, strings.TrimSpace(string(static)), port); err != nil {
		return nil, err
	}
	if s.log, err = os.Create(filepath.Join(work, "gitea.log")); err != nil {
		return nil, err
	}
	run := func(args ...string) error {
		cmd := s.command(ctx, bin, conf, args...)
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("gitea %s: %w\n%s", args[0], err, tail(out.String(), 4096))
		}
		return nil
	}
	if err := run("migrate"); err != nil {
		return nil, err
	}
	if err := run("admin", "user", "create", "--username", AdminUser, "--password", AdminPassword,
		"--email", adminEmail, "--admin", "--must-change-password=false"); err != nil {
		return nil, err
	}

	// Not bound to ctx: the server outlives the start-up call until Stop.
	s.cmd = s.command(context.Background(), bin, conf, "web")
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start gitea web: %w", err)
	}
	s.done = make(chan struct{})
	go func() { s.err = s.cmd.Wait(); close(s.done) }()

	if s.Version, err = s.waitUp(ctx); err != nil {
		return nil, err
	}
	if s.Token, err = s.createToken(ctx); err != nil {
		return nil, err
	}
	return s, nil
}

// command runs the Gitea binary with the server's config and work path.
func (s *Server) command(ctx context.Context, bin, conf string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, bin, append([]string{"--config", conf, "--work-path", s.dir}, args...)...)
	cmd.Dir = s.dir
	// git, run by Gitea, reads its configuration from HOME.
	cmd.Env = append(os.Environ(), "HOME="+s.dir, "GITEA_WORK_DIR="+s.dir, "USER="+currentUser())
	return cmd
}

// Stop ends the server and removes its work directory.
func (s *Server) Stop() error {
	if s.cmd != nil && s.cmd.Process != nil {
		// The whole process group: Gitea starts git processes of its own.
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-s.done:
		case <-time.After(15 * time.Second):
			_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
			<-s.done
		}
	}
	if s.log != nil {
		_ = s.log.Close()
	}
	return os.RemoveAll(s.dir)
}

// Log returns the end of the server's log, for a failing test's report.
func (s *Server) Log() string {
	data, _ := os.ReadFile(filepath.Join(s.dir, "gitea.log"))
	return tail(string(data), 8192)
}

func (s *Server) waitUp(ctx context.Context) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	for {
		select {
		case <-s.done:
			return "", fmt.Errorf("gitea web exited: %v\n%s", s.err, s.Log())
		case <-ctx.Done():
			return "", fmt.Errorf("gitea web did not answer GET /api/v1/version: %w\n%s", ctx.Err(), s.Log())
		case <-time.After(200 * time.Millisecond):
		}
		var v struct {
			Version string `json:"version"`
		}
		if status, err := s.call(ctx, http.MethodGet, "/api/v1/version", nil, &v); err == nil && status == http.StatusOK {
			return v.Version, nil
		}
	}
}

func (s *Server) createToken(ctx context.Context) (string, error) {
	var tok struct {
		SHA1 string `json:"sha1"`
	}
	body := map[string]any{"name": "forge-operator-tests", "scopes": []string{"all"}}
	status, err := s.call(ctx, http.MethodPost, "/api/v1/users/"+AdminUser+"/tokens", body, &tok)
	if err != nil {
		return "", fmt.Errorf("create access token: %w", err)
	}
	if status != http.StatusCreated || tok.SHA1 == "" {
		return "", fmt.Errorf("create access token: status %d", status)
	}
	return tok.SHA1, nil
}

// call sends one request with the admin's basic auth.
func (s *Server) call(ctx context.Context, method, path string, body, out any) (int, error) {
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			return 0, err
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, s.URL+path, rd)
	if err != nil {
		return 0, err
	}
	req.SetBasicAuth(AdminUser, AdminPassword)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer func() { _ = resp.Body.Close() }()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return resp.StatusCode, err
	}
	if out != nil && resp.StatusCode/100 == 2 {
		if err := json.Unmarshal(data, out); err != nil {
			return resp.StatusCode, fmt.Errorf("decode %s %s: %w", method, path, err)
		}
	}
	return resp.StatusCode, nil
}

// configTemplate is the server's app.ini. `[webhook] ALLOWED_HOST_LIST = *`
// lets hooks deliver to any address, loopback included (the suites' own
// receivers listen there, and Gitea's default list refuses loopback). 1.27
// moves the list to `[security] ALLOWED_HOST_LIST`, used when `[webhook]`
// has none; the `[webhook]` key still wins there, with a deprecation logged
// at start-up (modules/setting/webhook.go: removed in v28). 1.24.6 knows
// only the `[webhook]` key.
var configTemplate = template.Must(template.New("app.ini").Parse(`APP_NAME = forge-operator tests
RUN_USER = {{.User}}
RUN_MODE = prod
WORK_PATH = {{.Work}}
{{if .Root}}I_AM_BEING_UNSAFE_RUNNING_AS_ROOT = true
{{end}}
[server]
PROTOCOL = http
HTTP_ADDR = 127.0.0.1
HTTP_PORT = {{.Port}}
DOMAIN = 127.0.0.1
ROOT_URL = http://127.0.0.1:{{.Port}}/
DISABLE_SSH = true
START_SSH_SERVER = false
OFFLINE_MODE = true
LFS_START_SERVER = false
STATIC_ROOT_PATH = {{.Static}}
APP_DATA_PATH = {{.Work}}/data

[database]
DB_TYPE = sqlite3
PATH = {{.Work}}/data/gitea.db
SQLITE_JOURNAL_MODE = WAL

[repository]
ROOT = {{.Work}}/repositories

[security]
INSTALL_LOCK = true
SECRET_KEY = forge-operator-tests-secret-key-0123456789
INTERNAL_TOKEN = forge-operator-tests-internal-token-0123456789abcdef
PASSWORD_HASH_ALGO = pbkdf2

[oauth2]
ENABLED = false

[service]
DISABLE_REGISTRATION = true

[webhook]
ALLOWED_HOST_LIST = *
DELIVER_TIMEOUT = 5

[actions]
ENABLED = true

[indexer]
ISSUE_INDEXER_TYPE = db
REPO_INDEXER_ENABLED = false

[queue]
TYPE = channel

[cache]
ADAPTER = memory

[session]
PROVIDER = memory

[mailer]
ENABLED = false

[log]
MODE = console
LEVEL = Warn
`))

func writeConfig(path, work, static string, port int) error {
	var b bytes.Buffer
	err := configTemplate.Execute(&b, map[string]any{
		"User": currentUser(), "Work": work, "Static": static, "Port": port, "Root": os.Geteuid() == 0,
	})
	if err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o600)
}

func currentUser() string {
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return "root"
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer func() { _ = l.Close() }()
	addr, ok := l.Addr().(*net.TCPAddr)
	if !ok {
		return 0, errors.New("no TCP address")
	}
	return addr.Port, nil
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}
