package schedmetrics

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// requests are the REST API's request metrics.
type requests struct {
	latency *prometheus.HistogramVec
	refused *prometheus.CounterVec
}

func newRequests() *requests {
	return &requests{
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "floe_rest_request_duration_seconds",
			Help: "Time to answer a REST request, by route pattern and status code.",
			// From 1 ms to about 17 min: a savepoint request waits for the
			// savepoint, up to 10 minutes by default.
			Buckets: prometheus.ExponentialBuckets(0.001, 4, 11),
		}, []string{"route", "code"}),
		refused: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "floe_rest_requests_refused_total",
			Help: "REST requests answered with a 4xx status: malformed, unknown, not allowed or conflicting.",
		}, []string{"route", "code"}),
	}
}

// ObserveRequest counts a REST request: route is the pattern of the route
// table it matched, as "GET /v1/jobs/{id}" (rest.Options.Observe); code is the
// status code of the answer and d the time it took.
func (m *Metrics) ObserveRequest(route string, code int, d time.Duration) {
	c := strconv.Itoa(code)
	m.rest.latency.WithLabelValues(route, c).Observe(d.Seconds())
	if code >= 400 && code < 500 {
		m.rest.refused.WithLabelValues(route, c).Inc()
	}
}
