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

package fakeforge

import (
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/forgeops/forge-operator/internal/forge"
)

// controlRoutes serves the test controls under /_fake/. They need no
// credentials, are not recorded and are never faulted.
//
//	GET    /_fake/requests              the request log [{"method","path","status"}]
//	DELETE /_fake/requests              clear it
//	POST   /_fake/faults                arm a Fault (JSON; "delay" as "250ms")
//	DELETE /_fake/faults                disarm all faults
//	POST   /_fake/reset                 empty the state, log and faults
//	POST   /_fake/orgs                  {"name"}: create an organization
//	POST   /_fake/repos                 {"owner","name"}: create a repository
//	POST   /_fake/runners               {"owner","repo"?,"name","labels"?}: register a runner
//	PUT    /_fake/runners/{id}/status   {"status","busy"?}
//	PUT    /_fake/token                 {"token"}: rotate the admin token
//	PUT    /_fake/version               {"version"}
//	PUT    /_fake/projects              {"enabled"}
func (s *Server) controlRoutes() *http.ServeMux {
	m := http.NewServeMux()
	bad := func(w http.ResponseWriter, err error) {
		writeJSON(w, http.StatusBadRequest, map[string]string{"message": err.Error()})
	}
	m.HandleFunc("GET /_fake/requests", func(w http.ResponseWriter, _ *http.Request) {
		reqs := s.Requests()
		if reqs == nil {
			reqs = []Request{}
		}
		writeJSON(w, http.StatusOK, reqs)
	})
	m.HandleFunc("DELETE /_fake/requests", func(w http.ResponseWriter, _ *http.Request) {
		s.ClearRequests()
		w.WriteHeader(http.StatusNoContent)
	})
	m.HandleFunc("POST /_fake/faults", func(w http.ResponseWriter, r *http.Request) {
		var f Fault
		if !decode(w, r, &f) {
			return
		}
		if err := s.injectFault(f); err != nil {
			bad(w, err)
			return
		}
		writeJSON(w, http.StatusCreated, f)
	})
	m.HandleFunc("DELETE /_fake/faults", func(w http.ResponseWriter, _ *http.Request) {
		s.ClearFaults()
		w.WriteHeader(http.StatusNoContent)
	})
	m.HandleFunc("POST /_fake/reset", func(w http.ResponseWriter, _ *http.Request) {
		s.Reset()
		w.WriteHeader(http.StatusNoContent)
	})
	m.HandleFunc("POST /_fake/orgs", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Name string `json:"name"`
		}
		if !decode(w, r, &req) {
			return
		}
		o, err := s.CreateOrg(req.Name)
		if err != nil {
			bad(w, err)
			return
		}
		writeJSON(w, http.StatusCreated, o)
	})
	m.HandleFunc("POST /_fake/repos", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Owner string `json:"owner"`
			Name  string `json:"name"`
		}
		if !decode(w, r, &req) {
			return
		}
		if err := s.CreateRepo(req.Owner, req.Name); err != nil {
			bad(w, err)
			return
		}
		repo, _ := s.Repo(req.Owner, req.Name)
		writeJSON(w, http.StatusCreated, repo)
	})
	m.HandleFunc("POST /_fake/runners", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Owner  string   `json:"owner"`
			Repo   string   `json:"repo"`
			Name   string   `json:"name"`
			Labels []string `json:"labels"`
		}
		if !decode(w, r, &req) {
			return
		}
		scope := forge.Scope{Owner: req.Owner, Repo: req.Repo}
		s.mu.Lock()
		ow, ok := s.scopeOwner(scope)
		var rn forge.Runner
		if ok {
			rn = s.addRunner(ow, req.Name, "", req.Labels, false).toForge()
		}
		s.mu.Unlock()
		if !ok {
			writeJSON(w, http.StatusNotFound, map[string]string{"message": "no scope " + scope.String()})
			return
		}
		writeJSON(w, http.StatusCreated, rn)
	})
	m.HandleFunc("PUT /_fake/runners/{id}/status", func(w http.ResponseWriter, r *http.Request) {
		id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
		if err != nil {
			bad(w, err)
			return
		}
		var req struct {
			Status string `json:"status"`
			Busy   *bool  `json:"busy"`
		}
		if !decode(w, r, &req) {
			return
		}
		if req.Status != "" {
			s.SetRunnerStatus(id, req.Status)
		}
		if req.Busy != nil {
			s.SetRunnerBusy(id, *req.Busy)
		}
		w.WriteHeader(http.StatusNoContent)
	})
	m.HandleFunc("PUT /_fake/token", setting(func(req struct {
		Token string `json:"token"`
	}) {
		s.SetToken(req.Token)
	}))
	m.HandleFunc("PUT /_fake/version", setting(func(req struct {
		Version string `json:"version"`
	}) {
		s.SetVersion(req.Version)
	}))
	m.HandleFunc("PUT /_fake/projects", setting(func(req struct {
		Enabled bool `json:"enabled"`
	}) {
		s.SetProjectsEnabled(req.Enabled)
	}))
	return m
}

// setting serves a control that decodes a JSON body into T and applies it.
func setting[T any](apply func(T)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var req T
		if decode(w, r, &req) {
			apply(req)
			w.WriteHeader(http.StatusNoContent)
		}
	}
}

// decode reads a control's JSON body into v, answering 400 when it cannot.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	if err := json.NewDecoder(r.Body).Decode(v); err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]string{"message": err.Error()})
		return false
	}
	return true
}
