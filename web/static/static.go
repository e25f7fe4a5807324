// Package static embeds Studio's CSS, JavaScript and htmx, and names each
// file with its content hash so it can be cached for a year. Each file is
// compressed once per encoding (brotli, zstd, gzip), the first time a
// browser asks for it that way, and kept in memory: never per request.
package static

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/gzip"
	"github.com/klauspost/compress/zstd"
)

//go:embed *.css *.js
var files embed.FS

// encodings are the content codings a file is offered in, most compact
// first: brotli at its best level is 10–20% smaller than gzip's best on
// these files, and zstd's best a few bytes larger than gzip's (it is here
// for a client that prefers it, so nothing downstream compresses the file
// again per request).
var encodings = [...]string{"br", "gzip", "zstd"}

// file is one embedded file, with its compressed copies made on demand.
type file struct {
	name    string
	ctype   string
	version string
	data    []byte
	coded   [len(encodings)]coded // by index in encodings
}

type coded struct {
	once sync.Once
	data []byte // nil when the coding does not make the file smaller
}

var byName = func() map[string]*file {
	m := map[string]*file{}
	entries, _ := fs.ReadDir(files, ".")
	for _, e := range entries {
		data, _ := files.ReadFile(e.Name())
		sum := sha256.Sum256(data)
		m[e.Name()] = &file{name: e.Name(), ctype: mime.TypeByExtension(path.Ext(e.Name())),
			version: hex.EncodeToString(sum[:6]), data: data}
	}
	return m
}()

// Path is the URL of an embedded file, with its content hash as the version.
func Path(name string) string {
	v := ""
	if f, ok := byName[name]; ok {
		v = f.version
	}
	return "/static/" + name + "?v=" + v
}

func (c *coded) get(data []byte, encoding string) []byte {
	c.once.Do(func() {
		if out := compress(data, encoding); len(out) < len(data) {
			c.data = out
		}
	})
	return c.data
}

// zstdEncoder is shared: EncodeAll may be called from many goroutines.
var zstdEncoder = sync.OnceValue(func() *zstd.Encoder {
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBestCompression), zstd.WithEncoderConcurrency(1))
	if err != nil {
		panic("static: zstd: " + err.Error())
	}
	return enc
})

func compress(data []byte, encoding string) []byte {
	var b bytes.Buffer
	switch encoding {
	case "br":
		w := brotli.NewWriterLevel(&b, brotli.BestCompression)
		w.Write(data)
		w.Close()
	case "zstd":
		return zstdEncoder().EncodeAll(data, nil)
	case "gzip":
		w, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
		w.Write(data)
		w.Close()
	}
	return b.Bytes()
}

// Handler serves the embedded files under /static/. A request that names
// the current version may be cached for a year; any other for a minute.
// A browser that accepts brotli, zstd or gzip gets the file's compressed
// copy, with Vary: Accept-Encoding and its length; ranges are answered on
// the plain file only.
func Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/static/")
		f, ok := byName[name]
		switch {
		case !ok:
			http.NotFound(w, r)
			return
		case r.URL.Query().Get("v") == f.version:
			w.Header().Set("Cache-Control", "public, max-age=31536000, immutable")
		default:
			w.Header().Set("Cache-Control", "public, max-age=60")
		}
		h := w.Header()
		if !varies(h) {
			h.Add("Vary", "Accept-Encoding")
		}
		h.Set("Content-Type", f.ctype)
		if enc, coded := f.choose(r.Header.Values("Accept-Encoding")); coded != nil {
			// The whole copy, whatever Range asks (a server may always
			// answer 200): ranges are for the plain file.
			h.Set("Content-Encoding", enc)
			h.Set("Content-Length", strconv.Itoa(len(coded)))
			w.WriteHeader(http.StatusOK)
			w.Write(coded)
			return
		}
		http.ServeContent(w, r, name, time.Time{}, bytes.NewReader(f.data))
	})
}

// choose picks the coding the request accepts with the highest quality
// (RFC 9110 §12.5.3; "*" stands for any coding not named), the most compact
// among equals, and its copy, made now if it is the first time. It returns
// no copy when no coding is acceptable or none makes the file smaller.
func (f *file) choose(accept []string) (string, []byte) {
	q := map[string]float64{}
	for _, line := range accept {
		for _, part := range strings.Split(line, ",") {
			coding, params, _ := strings.Cut(part, ";")
			coding = strings.ToLower(strings.TrimSpace(coding))
			if coding == "" {
				continue
			}
			weight := 1.0
			if v, ok := strings.CutPrefix(strings.TrimSpace(params), "q="); ok {
				if x, err := strconv.ParseFloat(strings.TrimSpace(v), 64); err == nil {
					weight = x
				}
			}
			q[coding] = weight
		}
	}
	best, bestQ := -1, 0.0
	for i, e := range encodings {
		w, named := q[e]
		if !named {
			w = q["*"]
		}
		if w > bestQ && f.coded[i].get(f.data, e) != nil {
			best, bestQ = i, w
		}
	}
	if best < 0 {
		return "", nil
	}
	return encodings[best], f.coded[best].data
}

// varies reports whether Vary already names Accept-Encoding (a wrapper
// that compresses answers adds it before the handler runs).
func varies(h http.Header) bool {
	for _, v := range h.Values("Vary") {
		for _, f := range strings.Split(v, ",") {
			if f = strings.TrimSpace(f); f == "*" || strings.EqualFold(f, "Accept-Encoding") {
				return true
			}
		}
	}
	return false
}
