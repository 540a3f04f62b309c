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

package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestServesLabelsAndStops runs the command in-process: it prints its URL,
// serves a repository's labels like curl would fetch them, and returns
// cleanly when its context ends (what SIGINT/SIGTERM do in main).
func TestServesLabelsAndStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-addr", "127.0.0.1:0", "-token", "T", "-user", "U", "-password", "P"}, pw)
		_ = pw.Close()
	}()
	lines := bufio.NewScanner(pr)
	if !lines.Scan() {
		t.Fatalf("no output: %v", <-done)
	}
	url := regexp.MustCompile(`http://[0-9.:]+`).FindString(lines.Text())
	if url == "" {
		t.Fatalf("no URL in %q", lines.Text())
	}
	go func() {
		for lines.Scan() { // drain the rest
		}
	}()

	call := func(method, path, body string, basic bool) (int, string) {
		req, _ := http.NewRequestWithContext(ctx, method, url+path, strings.NewReader(body))
		if basic {
			req.SetBasicAuth("U", "P")
		} else {
			req.Header.Set("Authorization", "token T")
		}
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = resp.Body.Close() }()
		data, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(data)
	}
	for _, step := range []struct{ method, path, body string }{
		{"POST", "/api/v1/orgs", `{"username":"acme"}`},
		{"POST", "/api/v1/orgs/acme/repos", `{"name":"web"}`},
		{"POST", "/api/v1/repos/acme/web/labels", `{"name":"kind/bug","color":"#D73A4A","exclusive":true}`},
	} {
		if status, body := call(step.method, step.path, step.body, false); status != http.StatusCreated {
			t.Fatalf("%s %s: %d %s", step.method, step.path, status, body)
		}
	}
	status, body := call("GET", "/api/v1/repos/acme/web/labels", "", true)
	var labels []struct {
		Name  string `json:"name"`
		Color string `json:"color"`
	}
	if err := json.Unmarshal([]byte(body), &labels); status != 200 || err != nil || len(labels) != 1 || labels[0].Color != "d73a4a" {
		t.Fatalf("labels: %d %s", status, body)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("did not stop")
	}
}

func TestFlags(t *testing.T) {
	if err := run(context.Background(), []string{"-user", "U"}, io.Discard); err == nil {
		t.Fatal("-user without -password accepted")
	}
	if err := run(context.Background(), []string{"-bogus"}, io.Discard); err == nil {
		t.Fatal("unknown flag accepted")
	}
}
