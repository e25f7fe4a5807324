package handlers

import (
	"mime"
	"net/http"
	"strings"

	"github.com/klauspost/compress/gzhttp"
)

// compress sends every answer of the handler compressed when the request
// accepts it: zstd or gzip (github.com/klauspost/compress/gzhttp, which
// negotiates Accept-Encoding with its qualities, adds Vary:
// Accept-Encoding to every answer, passes Flush on, and leaves alone HEAD,
// 1xx/204/304, a 206 or Content-Range, an answer under 1 KB and one whose
// Content-Encoding is already set, e.g. /metrics' own and the static
// files', which web/static compresses once). Only text is compressed
// (compressible): images, media and archives are compressed already, and
// an event stream (MCP's) must reach the agent event by event without a
// compressor held open for hours. An ETag on a compressed answer must be
// weak, as the public site's are, since every coding shares it.
//
// BREACH: a compressed answer's length tells whoever watches the wire how
// well an attacker's text reflected in the page (a query, a search)
// matches a secret on the same page: the CSRF token of every Studio form
// (the same for the whole session: studio.Handler.Prepare), a preview
// link, the person's data. The attack needs the browser to send many requests the
// attacker's page starts, with the person's cookies. So an answer to a
// request carrying Studio's cookies (credentials: the session's and the
// CSRF nonce's) is compressed only when the browser says it came from
// Studio's own pages or from the person (Sec-Fetch-Site same-origin or
// none), which another site's page cannot make it say. A cross-site or
// same-site request with those cookies, or one from a browser that sends
// no Sec-Fetch-Site (browsers send it only over HTTPS or to localhost),
// gets its answer plain; without them (a script's bearer token, MCP's
// agent key, a visitor of the public site) there is no secret of a
// browser's to steal, and the answer is compressed. This covers every
// secret on every page, where masking the token per answer (Django,
// Rails) would cover the token alone.
func compress(credentials ...string) func(http.Handler) http.Handler {
	wrap, err := gzhttp.NewWrapper(gzhttp.ContentTypeFilter(compressible))
	if err != nil {
		panic("handlers: compression: " + err.Error())
	}
	return func(next http.Handler) http.Handler {
		compressed := wrap(next)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w = &varyWriter{ResponseWriter: w}
			if crossSiteWithCredentials(r, credentials) {
				next.ServeHTTP(w, r)
				return
			}
			compressed.ServeHTTP(w, r)
		})
	}
}

// varyWriter makes sure Vary names Accept-Encoding as the headers go out,
// whether the answer was compressed or not, and whatever a handler did
// with Vary before (the Schedules page sets its own: HX-Request).
type varyWriter struct {
	http.ResponseWriter
	done bool
}

func (v *varyWriter) WriteHeader(code int) {
	if !v.done && code >= 200 {
		v.done = true
		if h := v.Header(); !varies(h) {
			h.Add("Vary", "Accept-Encoding")
		}
	}
	v.ResponseWriter.WriteHeader(code)
}

func (v *varyWriter) Write(b []byte) (int, error) {
	if !v.done {
		v.WriteHeader(http.StatusOK)
	}
	return v.ResponseWriter.Write(b)
}

// Flush sends the headers, with Vary, and what is buffered: an event
// stream's events go out as they are written.
func (v *varyWriter) Flush() {
	if !v.done {
		v.WriteHeader(http.StatusOK)
	}
	http.NewResponseController(v.ResponseWriter).Flush()
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (v *varyWriter) Unwrap() http.ResponseWriter { return v.ResponseWriter }

// varies reports whether h's Vary names Accept-Encoding (or is "*").
func varies(h http.Header) bool {
	for _, line := range h.Values("Vary") {
		for _, f := range strings.Split(line, ",") {
			if f = strings.TrimSpace(f); f == "*" || strings.EqualFold(f, "Accept-Encoding") {
				return true
			}
		}
	}
	return false
}

// crossSiteWithCredentials reports whether r carries one of the cookies
// named, without the browser's word that Studio's own pages or the person
// sent it.
func crossSiteWithCredentials(r *http.Request, cookies []string) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "same-origin", "none":
		return false
	}
	for _, name := range cookies {
		if _, err := r.Cookie(name); err == nil {
			return true
		}
	}
	return false
}

// compressible reports whether an answer of content type ct is text worth
// compressing: text/* but event streams, JSON, JavaScript, XML (RSS,
// sitemaps) and SVG. Anything else, images and media above all, is sent
// as it is.
func compressible(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	switch {
	case mt == "text/event-stream":
		return false
	case strings.HasPrefix(mt, "text/"):
		return true
	case mt == "application/json", mt == "application/javascript", mt == "application/xml", mt == "image/svg+xml":
		return true
	case strings.HasPrefix(mt, "application/") && (strings.HasSuffix(mt, "+json") || strings.HasSuffix(mt, "+xml")):
		return true
	}
	return false
}
