package jtrace

import "net/http"

// Middleware starts or continues a journey for each request: jtrace's and the peer's headers are
// read; without them, entityOf (when given) names the entity of a new journey. The journey rides
// on the request's context (JourneyFrom); a request with neither passes through unrecorded.
func (r *Recorder) Middleware(entityOf func(*http.Request) (Entity, bool)) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			j := r.journeyFor(req, entityOf)
			if j != nil {
				req = req.WithContext(WithJourney(req.Context(), j))
			}
			next.ServeHTTP(w, req)
		})
	}
}

func (r *Recorder) journeyFor(req *http.Request, entityOf func(*http.Request) (Entity, bool)) (j *Journey) {
	defer func() {
		if recover() != nil {
			j = nil
		}
	}()
	var entity Entity
	hasEntity := false
	if entityOf != nil {
		entity, hasEntity = entityOf(req)
	}
	if c, ok := ExtractHTTPContext(req.Header); ok {
		return r.ContinueJourney(c, entity)
	}
	if hasEntity {
		return r.StartJourney(entity)
	}
	return nil
}

// Transport is an http.RoundTripper that adds the headers of the journey the request's context
// carries (the peer's too with Peer or the recorder's PeerPropagation). The request given is
// never changed: a copy with the headers is sent.
type Transport struct {
	Base http.RoundTripper
	Peer bool
}

// RoundTrip implements http.RoundTripper.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	j := JourneyFrom(req.Context())
	if j == nil {
		return base.RoundTrip(req)
	}
	out := req.Clone(req.Context())
	InjectHTTPHeaders(out.Header, j, t.Peer)
	return base.RoundTrip(out)
}
