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

package forge

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	"golang.org/x/time/rate"
)

// Defaults applied by New to zero Config fields.
const (
	DefaultQPS       = 10
	DefaultBurst     = 20
	DefaultTimeout   = 30 * time.Second
	DefaultUserAgent = "forge-operator"

	// PageSize is the page size lists ask for: the forge's default maximum.
	PageSize = 50

	// MaxResponseBytes bounds one response body.
	MaxResponseBytes = 8 << 20
	// A listing stops with an error past any of these, so that a forge
	// serving endless pages cannot exhaust the manager's memory.
	MaxListPages = 1000
	MaxListItems = 50000
	MaxListBytes = 64 << 20
	// listAttempts is how often a listing that changed under us is walked.
	listAttempts = 3

	// Bounds on strings the forge reports that end up in status.
	maxVersionLen = 128
	maxLoginLen   = 255
)

// Config says how to reach and authenticate to one forge.
type Config struct {
	// Name identifies the forge in metrics and logs, e.g. "namespace/name".
	// Clients with the same Name share one rate limiter.
	Name string
	// URL is the server root (https://git.example.com) or the API root
	// (https://git.example.com/api/v1).
	URL string
	// Token authenticates as "Authorization: token ...". Exclusive with Username.
	Token string
	// Username and Password authenticate with HTTP Basic.
	Username, Password string
	// CAData is a PEM bundle trusted in addition to the system roots.
	CAData []byte
	// InsecureSkipVerify disables TLS verification.
	InsecureSkipVerify bool
	// QPS and Burst size the token bucket; defaults 10/20 when zero. A
	// negative QPS disables rate limiting (tests).
	QPS   float64
	Burst int
	// Timeout bounds each HTTP request; default 30s.
	Timeout time.Duration
	// UserAgent is sent on every request; default "forge-operator".
	UserAgent string
	// DenyCIDRs are addresses the client never connects to, checked on the
	// address dialled (after DNS, on redirects too). Not applied with a
	// custom Transport.
	DenyCIDRs []netip.Prefix
	// Transport replaces the HTTP transport (tests); TLS settings above and
	// the address policy are then the transport's business.
	Transport http.RoundTripper
}

// String renders the config without credentials, so a Config that ends up
// in a log line or an error never leaks a secret.
func (c Config) String() string {
	auth := "none"
	switch {
	case c.Token != "":
		auth = "token"
	case c.Username != "":
		auth = "basic(" + c.Username + ")"
	}
	return fmt.Sprintf("forge.Config{Name:%q URL:%q Auth:%s InsecureSkipVerify:%t QPS:%g Burst:%d Timeout:%s DenyCIDRs:%v}",
		c.Name, c.URL, auth, c.InsecureSkipVerify, c.QPS, c.Burst, c.Timeout, c.DenyCIDRs)
}

// GoString is String, for %#v.
func (c Config) GoString() string { return c.String() }

// MarshalLog keeps credentials out of structured logs (logr.Marshaler).
func (c Config) MarshalLog() any { return c.String() }

// Client is the forge client; it implements Interface. Safe for concurrent use.
type Client struct {
	name      string
	base      string // ends in /api/v1, no trailing slash
	authz     string // Authorization header value, "" for anonymous
	userAgent string
	http      *http.Client
	budget                      // the forge's, shared by every client of its name (limiterFor)
	secrets   []string          // values that must never appear in errors or logs
	redactor  *strings.Replacer // replaces secrets, for calls that send no others
	readOnly  bool              // GETs only (ReadOnly)
	// bg marks a background check's copy (Snapshots.Reading): its waits
	// for the budget are no demand (writesWait).
	bg bool
}

var _ Interface = (*Client)(nil)

// New builds a client; it does not contact the server.
func New(cfg Config) (*Client, error) {
	invalid := func(format string, args ...any) error {
		prefix := "forge config: "
		if cfg.Name != "" {
			prefix = fmt.Sprintf("forge %s config: ", cfg.Name)
		}
		return fmt.Errorf(prefix+format, args...)
	}
	base, err := apiBase(cfg.URL)
	if err != nil {
		return nil, invalid("%w", err)
	}
	if cfg.Token != "" && (cfg.Username != "" || cfg.Password != "") {
		return nil, invalid("give either a token or a username and password, not both")
	}
	if cfg.Password != "" && cfg.Username == "" {
		return nil, invalid("basic auth needs a username")
	}
	c := &Client{name: cfg.Name, base: base, userAgent: cfg.UserAgent}
	if c.userAgent == "" {
		c.userAgent = DefaultUserAgent
	}
	switch {
	case cfg.Token != "":
		c.authz = "token " + cfg.Token
		c.secrets = append(c.secrets, c.authz, cfg.Token)
	case cfg.Username != "":
		raw := base64.StdEncoding.EncodeToString([]byte(cfg.Username + ":" + cfg.Password))
		c.authz = "Basic " + raw
		c.secrets = append(c.secrets, c.authz, raw, cfg.Password)
	}
	c.redactor = newRedactor(c.secrets...)

	rt := cfg.Transport
	if rt == nil {
		tlsCfg := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: cfg.InsecureSkipVerify} //nolint:gosec // opt-in by the user
		if len(cfg.CAData) > 0 {
			pool, perr := x509.SystemCertPool()
			if perr != nil || pool == nil {
				pool = x509.NewCertPool()
			}
			if !pool.AppendCertsFromPEM(cfg.CAData) {
				return nil, invalid("CA data holds no PEM certificate")
			}
			tlsCfg.RootCAs = pool
		}
		t := policyTransport(cfg.DenyCIDRs)
		t.TLSClientConfig = tlsCfg
		t.MaxIdleConnsPerHost = 10
		rt = t
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	c.http = &http.Client{Transport: rt, Timeout: timeout, CheckRedirect: sameOrigin}
	c.budget = limiterFor(cfg.Name, cfg.QPS, cfg.Burst)
	return c, nil
}

// wait takes a token from the forge's budget, counting the wait as demand
// unless c is a background check's copy (see writesWait).
func (c *Client) wait(ctx context.Context) error {
	if !c.bg {
		c.demand.waiting.Add(1)
		defer c.demand.waiting.Add(-1)
	}
	if err := c.limiter.Wait(ctx); err != nil {
		if ctx.Err() == nil {
			// The budget's next free turn comes after the context's deadline.
			return fmt.Errorf("%w: %v", ErrOutOfTime, err)
		}
		return err
	}
	return nil
}

// ErrOutOfTime is a call the forge's rate budget would let through only
// after its pass's deadline: it is not sent. A pass that keeps its
// progress (a set's round) stops there and the next pass goes on.
var ErrOutOfTime = errors.New("the forge's rate budget has no turn for this call before the pass's deadline")

// writesWait reports whether calls other than background checks (creates,
// updates, first reads) wait for the forge's rate budget now: drift
// checks are then spaced one more round apart (CheckSpacing).
func (c *Client) writesWait() bool { return c.demand.waiting.Load() > 0 }

// asBackground is a copy of c for a background check (Snapshots.Reading):
// the same forge, credentials and budget, its waits counted as no demand.
func (c *Client) asBackground() Interface {
	bg := *c
	bg.bg = true
	return &bg
}

// demand counts the foreground calls waiting on one forge's budget.
type demand struct {
	waiting atomic.Int64
}

// Name is the forge identity given in Config.Name.
func (c *Client) Name() string { return c.name }

// BaseURL is the API root the client talks to, ending in /api/v1.
func (c *Client) BaseURL() string { return c.base }

// apiBase turns a server root or API root into the API root.
// ServerKey names the forge server a URL reaches, so that Forge objects
// spelling one server differently ("https://Git.example.com/",
// "https://git.example.com:443/api/v1") are known as one: scheme and host
// in lower case, the port made explicit, the API path. A URL that does not
// parse is its own key.
func ServerKey(raw string) string {
	base, err := apiBase(raw)
	if err != nil {
		return raw
	}
	u, err := url.Parse(base)
	if err != nil {
		return base
	}
	return strings.ToLower(u.Scheme) + "://" + strings.ToLower(hostPort(u)) + u.Path
}

func apiBase(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return "", errors.New("url is empty")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", errors.New("url does not parse")
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", fmt.Errorf("url scheme %q is not http or https", u.Scheme)
	}
	if u.Host == "" {
		return "", errors.New("url has no host")
	}
	if u.User != nil {
		return "", errors.New("url must not carry credentials: use the token or basic auth settings")
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return "", errors.New("url must not carry a query or fragment")
	}
	p := strings.TrimRight(u.Path, "/")
	if !strings.HasSuffix(p, "/api/v1") {
		p += "/api/v1"
	}
	u.Path = p
	u.RawPath = ""
	return u.String(), nil
}

var (
	limitersMu sync.Mutex
	limiters   = map[string]budget{}
)

// budget is one forge's token bucket with the count of foreground calls
// waiting on it (see writesWait), and its drift checks' lane and load
// (lanes.go).
type budget struct {
	limiter *rate.Limiter
	demand  *demand
	lane    *rate.Limiter
	load    *driftLoad
}

// UserAgent is the User-Agent of a shard's manager (docs/shards.md):
// DefaultUserAgent for the default manager (shard ""), and the shard in a
// comment otherwise, so that a forge's access log (and a fake in tests)
// tells the managers apart.
func UserAgent(shard string) string {
	if shard == "" {
		return DefaultUserAgent
	}
	return DefaultUserAgent + " (shard " + shard + ")"
}

// limiterFor returns the budget of a forge. Clients are rebuilt when a
// Forge or its Secret changes; sharing the bucket by name keeps the limit
// per forge rather than per client instance.
func limiterFor(name string, qps float64, burst int) budget {
	limit := rate.Limit(qps)
	switch {
	case qps < 0:
		limit = rate.Inf
	case qps == 0:
		limit = DefaultQPS
	}
	if burst <= 0 {
		burst = DefaultBurst
	}
	fresh := func() budget {
		return budget{limiter: rate.NewLimiter(limit, burst), demand: new(demand), lane: newLane(limit, burst), load: &driftLoad{name: name}}
	}
	if name == "" {
		return fresh()
	}
	limitersMu.Lock()
	defer limitersMu.Unlock()
	b, ok := limiters[name]
	if !ok {
		b = fresh()
		limiters[name] = b
		return b
	}
	if b.limiter.Limit() != limit {
		b.limiter.SetLimit(limit)
		b.lane.SetLimit(laneLimit(limit))
	}
	if b.limiter.Burst() != burst {
		b.limiter.SetBurst(burst)
		b.lane.SetBurst(laneBurst(burst))
	}
	return b
}

// Forget drops the shared rate limiter and the metric series of a forge
// that no longer exists.
func Forget(name string) {
	limitersMu.Lock()
	delete(limiters, name)
	limitersMu.Unlock()
	forgetMetrics(name)
}

// call describes one HTTP request.
type call struct {
	op     string // for errors: `create label "x" in acme/web`
	method string
	route  string // template, for metrics: /orgs/{org}/hooks/{id}
	args   []any  // values substituted into route, in order
	query  url.Values
	body   any
	// secrets are values sent in this call's body that its errors and logs
	// must not show (a hook's secret, URL and authorization header).
	secrets []string
}

// path substitutes the escaped args into the route template.
func (cl *call) path() string {
	var b strings.Builder
	rest := cl.route
	i := 0
	for {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			b.WriteString(rest)
			break
		}
		closing := strings.IndexByte(rest[open:], '}')
		if closing < 0 {
			b.WriteString(rest)
			break
		}
		b.WriteString(rest[:open])
		if i < len(cl.args) {
			b.WriteString(url.PathEscape(fmt.Sprint(cl.args[i])))
		}
		i++
		rest = rest[open+closing+1:]
	}
	return b.String()
}

// response is a completed 2xx exchange.
type response struct {
	status int
	header http.Header
	body   []byte
}

// redactorFor is the replacer of a call: the client's credentials, the
// secret values the call sends, and those its context names (WithSecrets).
func (c *Client) redactorFor(cl call, extra ...string) *strings.Replacer {
	if len(cl.secrets) == 0 && len(extra) == 0 {
		return c.redactor
	}
	return newRedactor(slices.Concat(c.secrets, cl.secrets, extra)...)
}

// do performs one request through the rate limiter, with metrics and
// logging, and turns every failure into *Error.
func (c *Client) do(ctx context.Context, cl call) (*response, error) {
	if err := c.refuseWrite(cl); err != nil {
		return nil, err
	}
	if err := checkWrite(ctx, cl); err != nil {
		return nil, err
	}
	red := c.redactorFor(cl, secretsOf(ctx)...)
	log := logr.FromContextOrDiscard(ctx).WithValues("forge", c.name, "method", cl.method, "route", cl.route)
	if err := c.wait(ctx); err != nil {
		return nil, c.failWith(red, cl, &Error{Kind: KindNetwork, Err: err})
	}

	target := c.base + cl.path()
	if len(cl.query) > 0 {
		target += "?" + cl.query.Encode()
	}
	var body io.Reader
	if cl.body != nil {
		data, err := json.Marshal(cl.body)
		if err != nil {
			return nil, c.failWith(red, cl, &Error{Kind: KindUnknown, Err: fmt.Errorf("encode request: %w", err)})
		}
		body = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, cl.method, target, body)
	if err != nil {
		return nil, c.failWith(red, cl, &Error{Kind: KindUnknown, Err: err})
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", c.userAgent)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.authz != "" {
		req.Header.Set("Authorization", c.authz)
	}

	start := time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		observe(c.name, cl.method, cl.route, "error", time.Since(start))
		fe := &Error{Kind: KindNetwork, Err: err}
		var redirect *RedirectError
		var denied *DeniedAddressError
		switch {
		case errors.As(err, &redirect):
			// Not the *url.Error: it would name the whole redirect target.
			fe = &Error{Kind: KindInvalidResponse, Err: redirect}
		case errors.As(err, &denied):
			fe.Err = denied
		}
		fe = c.failWith(red, cl, fe)
		log.V(1).Info("forge request failed", "path", cl.path(), "error", fe.Err.Error())
		return nil, fe
	}
	data, readErr := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBytes+1))
	_ = resp.Body.Close()
	elapsed := time.Since(start)
	code := strconv.Itoa(resp.StatusCode)
	if readErr != nil {
		observe(c.name, cl.method, cl.route, "error", elapsed)
		fe := c.failWith(red, cl, &Error{Kind: KindNetwork, Err: fmt.Errorf("read %d response: %w", resp.StatusCode, readErr)})
		log.V(1).Info("forge response unreadable", "path", cl.path(), "code", resp.StatusCode, "error", fe.Err.Error())
		return nil, fe
	}
	observe(c.name, cl.method, cl.route, code, elapsed)
	log.V(1).Info("forge request", "path", cl.path(), "code", resp.StatusCode, "duration", elapsed)

	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		if len(data) > MaxResponseBytes {
			return nil, c.failWith(red, cl, &Error{Kind: KindInvalidResponse,
				Err: fmt.Errorf("the %d response is larger than %d MiB", resp.StatusCode, MaxResponseBytes>>20)})
		}
		return &response{status: resp.StatusCode, header: resp.Header, body: data}, nil
	}
	// An oversized error body is cut; its message then does not decode,
	// and the status text stands in for it.
	if redirectStatus(resp.StatusCode) {
		moved := &MovedError{Method: cl.method, Path: cl.path(), StatusCode: resp.StatusCode, To: "an address it does not name"}
		if loc, err := req.URL.Parse(resp.Header.Get("Location")); err == nil && resp.Header.Get("Location") != "" {
			moved.To = loc.EscapedPath()
		}
		return nil, c.failWith(red, cl, &Error{Kind: KindMoved, StatusCode: resp.StatusCode, Err: moved})
	}
	fe := &Error{
		Kind:       kindForStatus(resp.StatusCode, data),
		StatusCode: resp.StatusCode,
		Message:    forgeMessage(data),
	}
	if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable {
		if d, ok := parseRetryAfter(resp.Header.Get("Retry-After")); ok {
			fe.RetryAfter = d
		}
	}
	return nil, c.failWith(red, cl, fe)
}

// maxAnswerShown bounds how much of an answer the client refuses is quoted
// in its error.
const maxAnswerShown = 256

// identified is a forge object with an id; an answer carrying id <= 0 is
// refused, since the id would be recorded and a later pass would create
// the object again.
type identified interface{ forgeID() int64 }

// doJSON performs the call and decodes a 2xx body into out (if non-nil).
// A null body or an object without a positive id is an error.
func (c *Client) doJSON(ctx context.Context, cl call, out any) (*response, error) {
	resp, err := c.do(ctx, cl)
	if err != nil {
		return nil, err
	}
	if out != nil {
		red := c.redactorFor(cl, secretsOf(ctx)...)
		invalid := func(err error) error {
			return c.failWith(red, cl, &Error{Kind: KindInvalidResponse, Err: err})
		}
		if bytes.Equal(bytes.TrimSpace(resp.body), []byte("null")) {
			return nil, invalid(fmt.Errorf("the forge answered %d with null", resp.status))
		}
		// The answer itself, redacted and bounded, says what the forge sent.
		if err := json.Unmarshal(resp.body, out); err != nil {
			return nil, invalid(fmt.Errorf("decode %d response %s: %w", resp.status, quoteAnswer(red, resp.body), err))
		}
		if o, ok := out.(identified); ok && o.forgeID() <= 0 {
			return nil, invalid(fmt.Errorf("the forge answered %d with id %d: %s", resp.status, o.forgeID(), quoteAnswer(red, resp.body)))
		}
	}
	return resp, nil
}

// fail completes an error with the call's name, removes every secret of
// the call from the strings it carries and bounds their length.
func (c *Client) fail(cl call, e *Error) *Error {
	return c.failWith(c.redactorFor(cl), cl, e)
}

func (c *Client) failWith(red *strings.Replacer, cl call, e *Error) *Error {
	// Redact before cutting: a cut secret would no longer be recognised.
	e.Op = redactWith(red, cl.op)
	e.Message = truncate(redactWith(red, e.Message), MaxMessage)
	if e.Err != nil {
		s := e.Err.Error()
		if clean := truncate(redactWith(red, s), MaxMessage); clean != s {
			e.Err = &redactedError{msg: clean, err: e.Err}
		}
	}
	return e
}

// redactedError hides a credential in a wrapped error's text but keeps the
// chain for errors.Is/As.
type redactedError struct {
	msg string
	err error
}

func (r *redactedError) Error() string { return r.msg }
func (r *redactedError) Unwrap() error { return r.err }
