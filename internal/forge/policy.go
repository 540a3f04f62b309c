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
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// DefaultDenyCIDRs are the link-local ranges, where cloud metadata services
// answer: a tenant's Forge must not make the operator fetch credentials
// from there.
const DefaultDenyCIDRs = "169.254.0.0/16,fe80::/10"

// ParseCIDRs reads a comma-separated list of CIDRs ("" gives none).
func ParseCIDRs(list string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for f := range strings.SplitSeq(list, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		p, err := netip.ParsePrefix(f)
		if err != nil {
			return nil, fmt.Errorf("parse CIDR %q: %w", f, err)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// DeniedAddressError is a connection the address policy refused.
type DeniedAddressError struct {
	Addr   netip.Addr
	Prefix netip.Prefix
}

func (e *DeniedAddressError) Error() string {
	return fmt.Sprintf("address %s is denied by the operator's address policy (%s is in --forge-deny-cidrs)", e.Addr, e.Prefix)
}

// denyControl checks the address actually dialled, after name resolution:
// a DNS name that resolves to a denied address, or a redirect to one, is
// refused like a literal address.
func denyControl(deny []netip.Prefix) func(network, address string, _ syscall.RawConn) error {
	return func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("address policy: cannot read dialled address %q: %w", address, err)
		}
		// ::ffff:169.254.169.254 is 169.254.169.254.
		ip := ap.Addr().Unmap().WithZone("")
		reached := []netip.Addr{ip}
		if ip.IsUnspecified() {
			// Connecting to 0.0.0.0 or :: reaches this host: the address is
			// loopback for the policy.
			reached = append(reached, netip.IPv6Loopback())
			if ip.Is4() {
				reached[1] = netip.AddrFrom4([4]byte{127, 0, 0, 1})
			}
		}
		for _, p := range deny {
			for _, a := range reached {
				if p.Contains(a) {
					return &DeniedAddressError{Addr: ip, Prefix: p}
				}
			}
		}
		return nil
	}
}

// policyTransport is the default transport with the address policy in its
// dialer. A proxy from the environment is dialled (and checked) instead of
// the forge: the proxy then owns the policy for what lies behind it.
func policyTransport(deny []netip.Prefix) *http.Transport {
	t := http.DefaultTransport.(*http.Transport).Clone()
	d := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	if len(deny) > 0 {
		d.Control = denyControl(deny)
	}
	t.DialContext = d.DialContext
	return t
}

// RedirectError is a redirect the client refused to follow. It names the
// target's scheme and host only: the rest of the address may carry tokens.
type RedirectError struct {
	Scheme, Host string
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("refused a redirect to %s://%s: redirects are followed only to the same scheme, host and port; set spec.url to the address the forge redirects to", e.Scheme, e.Host)
}

// MovedError is a call the forge answered with a redirect on its own
// origin. Gitea answers the old name of a renamed organization or user
// with 307 on every API route (RedirectToUser: the first occurrence of the
// old name in the path replaced by the new one, the query kept, Location a
// path without scheme or host), and the old path of a renamed repository
// with 301 (verified on Gitea 1.26.4), for every method. No redirect is
// followed: a read of /orgs/old answered by the organization now called
// new would be taken for old, and a grant given for old's name would then
// write to new (a tenant allowed team-a-* would become an owner of
// shared-tools, once called team-a-tools); a write would be repeated by Go
// as a GET and look like success. To is the path the forge points at,
// without its query.
type MovedError struct {
	Method, Path, To string
	StatusCode       int
}

func (e *MovedError) Error() string {
	return fmt.Sprintf("the forge answered this %s of %s with a redirect to %s: what it names was renamed or transferred; nothing is read or written through a redirect: name the object as it is called now in the spec, if it is meant", e.Method, e.Path, e.To)
}

// redirectStatus reports the statuses net/http would follow.
func redirectStatus(code int) bool {
	switch code {
	case http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther,
		http.StatusTemporaryRedirect, http.StatusPermanentRedirect:
		return true
	}
	return false
}

// sameOrigin follows no redirect. One to another scheme, host or port is
// refused (RedirectError), so that credentials and bodies never travel to
// another server or over plain HTTP; one on the forge's own origin ends
// the call with the redirect itself, which do turns into a MovedError.
func sameOrigin(req *http.Request, via []*http.Request) error {
	from, to := via[0].URL, req.URL
	if !strings.EqualFold(from.Scheme, to.Scheme) || !strings.EqualFold(hostPort(from), hostPort(to)) {
		return &RedirectError{Scheme: to.Scheme, Host: to.Host}
	}
	return http.ErrUseLastResponse
}

// hostPort is host:port with the scheme's default port made explicit.
func hostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = "80"
		if strings.EqualFold(u.Scheme, "https") {
			port = "443"
		}
	}
	return net.JoinHostPort(u.Hostname(), port)
}
