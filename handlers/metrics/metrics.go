// Package metrics is Studio's /metrics (issue 16): the Prometheus text
// format, from a registry of its own (never the global one). It hears the
// scheduler's ticks (scheduler.Observer), times every HTTP request by its
// route pattern, and reads at each scrape what the database holds: releases
// and automation runs by state, the due backlog, the heartbeat's age, and
// the connection pools' statistics.
package metrics

import (
	"context"
	"crypto/subtle"
	"database/sql"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"studio/engine/scheduler"
)

// LatenessBuckets are the release lateness histogram's upper bounds in
// seconds: 0.1 s to 512 s, doubling from 1 s as Kubernetes' CronJob skew
// does, with finer steps below a second where Studio's goal (p99 ≤ 1 s) is.
var LatenessBuckets = []float64{0.1, 0.25, 0.5, 1, 2, 4, 8, 16, 32, 64, 128, 256, 512}

// Metrics is one process's metrics.
type Metrics struct {
	reg         *prometheus.Registry
	ticks       *prometheus.CounterVec
	tickSeconds prometheus.Histogram
	lateness    prometheus.Histogram
	runs        *prometheus.CounterVec
	httpSeconds *prometheus.HistogramVec
}

// New registers Studio's metrics, besides Go's and the process's; Observe
// adds the scheduler's and WatchPools the database's.
func New() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		ticks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "studio_scheduler_ticks_total",
			Help: "Scheduler ticks this process ran, by trigger (node: the ticker; manual: run-due; backstop) and result.",
		}, []string{"trigger", "result"}),
		tickSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "studio_scheduler_tick_duration_seconds",
			Help:    "How long this process's scheduler ticks took.",
			Buckets: prometheus.DefBuckets,
		}),
		lateness: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "studio_release_lateness_seconds",
			Help:    "How long after its time each release this process published went live.",
			Buckets: LatenessBuckets,
		}),
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "studio_release_runs_total",
			Help: "Release runs this process's ticks ended, by result (published, late: published a minute or more after its time, failed).",
		}, []string{"result"}),
		httpSeconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "studio_http_request_duration_seconds",
			Help:    "HTTP requests by method, route pattern (never the raw path) and status class.",
			Buckets: prometheus.DefBuckets,
		}, []string{"method", "route", "code"}),
	}
	m.reg.MustRegister(m.ticks, m.tickSeconds, m.lateness, m.runs, m.httpSeconds,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// WatchPools reports the connection pools' statistics, by name. Once.
func (m *Metrics) WatchPools(pools map[string]*sql.DB) {
	for name, db := range pools {
		m.reg.MustRegister(collectors.NewDBStatsCollector(db, name))
	}
}

// Observe hears sched's ticks and reads its gauges at each scrape. Once.
func (m *Metrics) Observe(sched *scheduler.Scheduler) {
	sched.SetObserver(m)
	m.reg.MustRegister(&schedulerState{sched: sched})
}

// Ticked is the scheduler's observer: it counts the tick and its runs and
// observes each published release's lateness.
func (m *Metrics) Ticked(trigger string, rep scheduler.TickReport, took time.Duration, err error) {
	result := "ok"
	if err != nil {
		result = "error"
	}
	m.ticks.WithLabelValues(trigger, result).Inc()
	m.tickSeconds.Observe(took.Seconds())
	for _, late := range rep.Lateness {
		m.lateness.Observe(late.Seconds())
	}
	m.runs.WithLabelValues("published").Add(float64(rep.Published))
	m.runs.WithLabelValues("late").Add(float64(rep.Late))
	m.runs.WithLabelValues("failed").Add(float64(rep.Failed))
}

// Middleware times every request under the route pattern chi matched;
// what no route matched counts as "unmatched", and a method outside HTTP's
// own as "other", so a scanner's paths and methods never become series.
func (m *Metrics) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
		next.ServeHTTP(ww, r)
		route := "unmatched"
		if rc := chi.RouteContext(r.Context()); rc != nil && rc.RoutePattern() != "" {
			route = rc.RoutePattern()
		}
		code := ww.Status()
		if code == 0 {
			code = http.StatusOK
		}
		m.httpSeconds.WithLabelValues(methodLabel(r.Method), route, strconv.Itoa(code/100)+"xx").Observe(time.Since(start).Seconds())
	})
}

// Handler serves the metrics. With a token, only a request that carries
// it (Authorization: Bearer) gets them; anyone else gets notFound, the
// answer of a path nothing serves, as if there were no metrics. Without
// one, whoever reaches the handler does: serve mounts it that way only on
// --metrics-addr, off the public host.
func (m *Metrics) Handler(token string, notFound http.Handler) http.Handler {
	h := promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if token != "" {
			got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
			if !ok || subtle.ConstantTimeCompare([]byte(got), []byte(token)) != 1 {
				notFound.ServeHTTP(w, r)
				return
			}
		}
		w.Header().Set("Cache-Control", "no-store")
		h.ServeHTTP(w, r)
	})
}

// Gatherer is the registry, for tests that lint it.
func (m *Metrics) Gatherer() prometheus.Gatherer { return m.reg }

// schedulerState reads the scheduler's gauges at each scrape: the database
// is the only state, so every instance reports the same numbers.
type schedulerState struct{ sched *scheduler.Scheduler }

var (
	releasesDesc = prometheus.NewDesc("studio_releases", "Releases by state, in the database (all sites): every instance reports the same value, so aggregate with max, not sum.", []string{"state"}, nil)
	runsDesc     = prometheus.NewDesc("studio_automation_runs", "Automation runs by state, in the database (all sites): every instance reports the same value, so aggregate with max, not sum.", []string{"state"}, nil)
	backlogDesc  = prometheus.NewDesc("studio_due_backlog", "Releases whose time has come that have not run yet, in the database (all sites): every instance reports the same value, so aggregate with max, not sum.", nil, nil)
	beatDesc     = prometheus.NewDesc("studio_scheduler_heartbeat_age_seconds",
		"Seconds since a tick last wrote the heartbeat (at least every 5 minutes while the scheduler runs); absent before the first tick.", nil, nil)
	upDesc = prometheus.NewDesc("studio_scheduler_state_up", "1 when the scheduler's state could be read from the database at this scrape.", nil, nil)
)

func (c *schedulerState) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{releasesDesc, runsDesc, backlogDesc, beatDesc, upDesc} {
		ch <- d
	}
}

func (c *schedulerState) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	g, err := c.sched.Gauges(ctx)
	if err != nil {
		ch <- prometheus.MustNewConstMetric(upDesc, prometheus.GaugeValue, 0)
		return
	}
	ch <- prometheus.MustNewConstMetric(upDesc, prometheus.GaugeValue, 1)
	for state, n := range g.Releases {
		ch <- prometheus.MustNewConstMetric(releasesDesc, prometheus.GaugeValue, float64(n), state)
	}
	for state, n := range g.AutomationRuns {
		ch <- prometheus.MustNewConstMetric(runsDesc, prometheus.GaugeValue, float64(n), state)
	}
	ch <- prometheus.MustNewConstMetric(backlogDesc, prometheus.GaugeValue, float64(g.DueBacklog))
	if g.HeartbeatSeen {
		ch <- prometheus.MustNewConstMetric(beatDesc, prometheus.GaugeValue, g.HeartbeatAge.Seconds())
	}
}

// methodLabel is the method's label: one of HTTP's own, or "other" for
// whatever else a client sends.
func methodLabel(method string) string {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete,
		http.MethodOptions, http.MethodConnect, http.MethodTrace:
		return method
	}
	return "other"
}
