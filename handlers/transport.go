package handlers

import (
	"net"
	"net/http"
	"net/netip"
	"strings"

	"studio/handlers/studio"
)

// hsts asks browsers to come back over HTTPS only, for a year. It leaves
// out includeSubDomains: other hosts of the domain are not Studio's to
// promise.
const hsts = "max-age=31536000"

// transport tells whether a request came over HTTPS: its own TLS, or a
// trusted proxy's X-Forwarded-Proto "https". Over HTTPS (or always, with
// force) every cookie the response sets is marked Secure, and HSTS is sent;
// over plain HTTP it never is, as browsers ignore it there and a proxy that
// is not trusted does not get to turn it on.
func transport(trusted []netip.Prefix, force bool) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			https := overHTTPS(r, trusted)
			if https {
				w.Header().Set("Strict-Transport-Security", hsts)
				r = r.WithContext(studio.WithHTTPS(r.Context()))
			}
			if https || force {
				w = &secureCookies{ResponseWriter: w}
			}
			if ip, ok := forwardedClient(r, trusted); ok {
				r = r.WithContext(studio.WithClientIP(r.Context(), ip))
			}
			next.ServeHTTP(w, r)
		})
	}
}

func overHTTPS(r *http.Request, trusted []netip.Prefix) bool {
	if r.TLS != nil {
		return true
	}
	proto := r.Header.Values("X-Forwarded-Proto")
	if len(proto) == 0 || !fromTrusted(r.RemoteAddr, trusted) {
		return false
	}
	// The nearest proxy's word is the last one: a proxy that appends keeps
	// what the client claimed in front of it.
	last := proto[len(proto)-1]
	if i := strings.LastIndexByte(last, ','); i >= 0 {
		last = last[i+1:]
	}
	return strings.EqualFold(strings.TrimSpace(last), "https")
}

// forwardedClient is the client's address behind trusted proxies: walking
// X-Forwarded-For from the nearest hop, the first address that is not a
// trusted proxy itself (what a client wrote further left is its own claim).
func forwardedClient(r *http.Request, trusted []netip.Prefix) (string, bool) {
	if !fromTrusted(r.RemoteAddr, trusted) {
		return "", false
	}
	var hops []string
	for _, v := range r.Header.Values("X-Forwarded-For") {
		hops = append(hops, strings.Split(v, ",")...)
	}
	for i := len(hops) - 1; i >= 0; i-- {
		ip, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil {
			return "", false
		}
		if !inPrefixes(ip.Unmap(), trusted) {
			return ip.Unmap().String(), true
		}
	}
	return "", false
}

func fromTrusted(remote string, trusted []netip.Prefix) bool {
	if len(trusted) == 0 {
		return false
	}
	host, _, err := net.SplitHostPort(remote)
	if err != nil {
		host = remote
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return false
	}
	return inPrefixes(ip.Unmap(), trusted)
}

func inPrefixes(ip netip.Addr, prefixes []netip.Prefix) bool {
	for _, p := range prefixes {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// ParseTrustedProxies reads a comma-separated list of CIDR prefixes or
// single addresses, as --trusted-proxy takes it.
func ParseTrustedProxies(list string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.Split(list, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if !strings.Contains(f, "/") {
			ip, err := netip.ParseAddr(f)
			if err != nil {
				return nil, err
			}
			out = append(out, netip.PrefixFrom(ip.Unmap(), ip.Unmap().BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(f)
		if err != nil {
			return nil, err
		}
		if p.Addr().Is4In6() {
			p = netip.PrefixFrom(p.Addr().Unmap(), p.Bits()-96)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// secureCookies marks Secure every cookie set on the response, whoever set
// it (the session manager, Studio's CSRF cookie), as the headers go out.
type secureCookies struct {
	http.ResponseWriter
	done bool
}

func (s *secureCookies) WriteHeader(code int) {
	if !s.done {
		s.done = code >= 200
		h := s.Header()
		for i, line := range h["Set-Cookie"] {
			if c, err := http.ParseSetCookie(line); err == nil && !c.Secure {
				h["Set-Cookie"][i] = line + "; Secure"
			}
		}
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *secureCookies) Write(b []byte) (int, error) {
	if !s.done {
		s.WriteHeader(http.StatusOK)
	}
	return s.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (s *secureCookies) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// Flush sends what is buffered, marking the cookies first.
func (s *secureCookies) Flush() {
	if !s.done {
		s.WriteHeader(http.StatusOK)
	}
	http.NewResponseController(s.ResponseWriter).Flush()
}
