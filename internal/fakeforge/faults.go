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
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"time"
)

// Request is one request the fake has seen.
type Request struct {
	Method string `json:"method"`
	// Path is the URL path as sent, e.g. /api/v1/orgs/acme/hooks.
	Path string `json:"path"`
	// Query is the raw query string, if any.
	Query string `json:"query,omitempty"`
	// Status is the status sent; 0 when the connection was reset before a
	// response. For a lost response it is the status the change produced.
	Status int `json:"status"`
	// Fault names the injected fault that hit the request, if any:
	// "status", "delay", "reset" or "lost_response".
	Fault string `json:"fault,omitempty"`
}

// IsWrite reports whether the request could change state.
func (r Request) IsWrite() bool {
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	return true
}

// Fault is injected into the next Count requests matching Method and Path.
//
// Effects apply in this order: Delay (then the request goes on, unless
// another effect is set); Reset (the connection is dropped before the
// request is handled); Status (answered with Status, Body and Header
// instead of handling); LostResponse (the request is handled and its change
// applied, then the connection is dropped so the client never sees the
// answer).
//
// Note that Go's HTTP client transparently retries an idempotent request
// (GET, DELETE ...) once when a reused keep-alive connection drops before
// any response: to make such a request fail, give Count 2 or more.
type Fault struct {
	// Method matches the HTTP method; "" matches any.
	Method string `json:"method,omitempty"`
	// Path matches the URL path: a pattern starting with "^" is a regular
	// expression; anything else is a glob where "*" matches within one
	// segment and "**" across segments. Patterns not starting with /api/
	// also match the path without its /api/v1 prefix, so "/orgs/*/hooks"
	// works. "" matches any path.
	Path string `json:"path,omitempty"`
	// Count is how many matching requests the fault hits: 0 means 1, a
	// negative count means until cleared.
	Count int `json:"count,omitempty"`
	// Status and Body (JSON or text) answer the request instead of the forge.
	Status int    `json:"status,omitempty"`
	Body   string `json:"body,omitempty"`
	// Header is added to a Status answer, e.g. {"Retry-After": "3"}.
	Header map[string]string `json:"header,omitempty"`
	// Delay holds the request before anything else happens.
	Delay time.Duration `json:"-"`
	// Reset drops the connection before handling.
	Reset bool `json:"reset,omitempty"`
	// LostResponse handles the request, then drops the connection.
	LostResponse bool `json:"lost_response,omitempty"`
	// Before runs before the request is handled, with the forge's state
	// unlocked: a person or a bot changing the forge while the operator
	// works (Go tests only).
	Before func() `json:"-"`
}

// UnmarshalJSON reads "delay" as a duration string ("250ms") or milliseconds.
func (f *Fault) UnmarshalJSON(data []byte) error {
	type plain Fault
	var aux struct {
		plain
		Delay json.RawMessage `json:"delay"`
	}
	if err := json.Unmarshal(data, &aux); err != nil {
		return err
	}
	*f = Fault(aux.plain)
	if len(aux.Delay) > 0 && string(aux.Delay) != "null" {
		var str string
		if json.Unmarshal(aux.Delay, &str) == nil {
			d, err := time.ParseDuration(str)
			if err != nil {
				return fmt.Errorf("delay: %w", err)
			}
			f.Delay = d
		} else {
			var ms int64
			if err := json.Unmarshal(aux.Delay, &ms); err != nil {
				return fmt.Errorf("delay: want a duration string or milliseconds")
			}
			f.Delay = time.Duration(ms) * time.Millisecond
		}
	}
	return nil
}

// MarshalJSON writes the delay as a duration string.
func (f Fault) MarshalJSON() ([]byte, error) {
	type plain Fault
	aux := struct {
		plain
		Delay string `json:"delay,omitempty"`
	}{plain: plain(f)}
	if f.Delay > 0 {
		aux.Delay = f.Delay.String()
	}
	return json.Marshal(aux)
}

type fault struct {
	Fault
	re   *regexp.Regexp
	left int // <0: unlimited
}

// InjectFault arms a fault; it panics on an invalid pattern (a test bug).
func (s *Server) InjectFault(f Fault) {
	if err := s.injectFault(f); err != nil {
		panic(err)
	}
}

func (s *Server) injectFault(f Fault) error {
	re, err := compilePattern(f.Path)
	if err != nil {
		return err
	}
	left := f.Count
	if left == 0 {
		left = 1
	}
	s.ctl.Lock()
	defer s.ctl.Unlock()
	s.faults = append(s.faults, &fault{Fault: f, re: re, left: left})
	return nil
}

// ClearFaults disarms every fault.
func (s *Server) ClearFaults() {
	s.ctl.Lock()
	defer s.ctl.Unlock()
	s.faults = nil
}

func compilePattern(p string) (*regexp.Regexp, error) {
	if p == "" {
		return regexp.MustCompile(`.*`), nil
	}
	if strings.HasPrefix(p, "^") {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, fmt.Errorf("fault path %q: %w", p, err)
		}
		return re, nil
	}
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(p); i++ {
		switch c := p[i]; c {
		case '*':
			if i+1 < len(p) && p[i+1] == '*' {
				b.WriteString(".*")
				i++
			} else {
				b.WriteString("[^/]*")
			}
		case '?':
			b.WriteString("[^/]")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
}

func (f *fault) matches(method, path string) bool {
	if f.Method != "" && !strings.EqualFold(f.Method, method) {
		return false
	}
	if f.re.MatchString(path) {
		return true
	}
	if !strings.HasPrefix(f.Path, "/api/") && !strings.HasPrefix(f.Path, "^") {
		if rest, ok := strings.CutPrefix(path, "/api/v1"); ok && f.re.MatchString(rest) {
			return true
		}
	}
	return false
}

// takeFault consumes one hit of the first armed fault matching the request.
func (s *Server) takeFault(r *http.Request) *Fault {
	s.ctl.Lock()
	defer s.ctl.Unlock()
	for i, f := range s.faults {
		if !f.matches(r.Method, r.URL.Path) {
			continue
		}
		if f.left > 0 {
			f.left--
			if f.left == 0 {
				s.faults = append(s.faults[:i:i], s.faults[i+1:]...)
			}
		}
		hit := f.Fault
		return &hit
	}
	return nil
}

// Requests returns a copy of every request seen, in arrival order.
func (s *Server) Requests() []Request {
	s.ctl.Lock()
	defer s.ctl.Unlock()
	return append([]Request(nil), s.requests...)
}

// WriteRequests returns the requests that could have changed state.
func (s *Server) WriteRequests() []Request {
	var out []Request
	for _, r := range s.Requests() {
		if r.IsWrite() {
			out = append(out, r)
		}
	}
	return out
}

// ClearRequests empties the request log.
func (s *Server) ClearRequests() {
	s.ctl.Lock()
	defer s.ctl.Unlock()
	s.reqBase += len(s.requests)
	s.requests = nil
}

// record logs a request on arrival and returns its serial number.
func (s *Server) record(r *http.Request) int {
	s.ctl.Lock()
	defer s.ctl.Unlock()
	s.requests = append(s.requests, Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery})
	return s.reqBase + len(s.requests) - 1
}

// finish fills in the outcome of request serial, unless the log was
// cleared meanwhile.
func (s *Server) finish(serial int, status int, fault string) {
	s.ctl.Lock()
	defer s.ctl.Unlock()
	if i := serial - s.reqBase; i >= 0 && i < len(s.requests) {
		s.requests[i].Status = status
		s.requests[i].Fault = fault
	}
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (s *Server) serveWithFaults(w http.ResponseWriter, r *http.Request) {
	i := s.record(r)
	f := s.takeFault(r)
	kind := ""
	if f != nil {
		if f.Before != nil {
			f.Before()
		}
		if f.Delay > 0 {
			kind = "delay"
			t := time.NewTimer(f.Delay)
			select {
			case <-t.C:
			case <-r.Context().Done():
				t.Stop()
				s.finish(i, 0, kind)
				return
			}
		}
		switch {
		case f.Reset:
			s.finish(i, 0, "reset")
			dropConnection(w)
			return
		case f.Status != 0:
			for k, v := range f.Header {
				w.Header().Set(k, v)
			}
			if f.Body != "" {
				if json.Valid([]byte(f.Body)) {
					w.Header().Set("Content-Type", "application/json;charset=utf-8")
				} else {
					w.Header().Set("Content-Type", "text/plain; charset=utf-8")
				}
			}
			w.WriteHeader(f.Status)
			_, _ = w.Write([]byte(f.Body))
			s.finish(i, f.Status, "status")
			return
		case f.LostResponse:
			rec := httptest.NewRecorder()
			s.serveForge(rec, r)
			s.finish(i, rec.Code, "lost_response")
			dropConnection(w)
			return
		}
	}
	sw := &statusWriter{ResponseWriter: w}
	s.serveForge(sw, r)
	if sw.status == 0 {
		sw.status = http.StatusOK
	}
	s.finish(i, sw.status, kind)
}

// dropConnection closes the client's connection without a response, with
// a TCP reset where possible.
func dropConnection(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err != nil {
		// HTTP/2 cannot be hijacked: abort the stream instead.
		panic(http.ErrAbortHandler)
	}
	tcp, ok := conn.(*net.TCPConn)
	if !ok {
		if nc, ok2 := conn.(interface{ NetConn() net.Conn }); ok2 {
			tcp, ok = nc.NetConn().(*net.TCPConn)
		}
	}
	if ok {
		_ = tcp.SetLinger(0)
	}
	_ = conn.Close()
}
