package jtrace

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestMiddlewareAndTransportCarryOneJourneyAcrossAnHTTPHop(t *testing.T) {
	rc := newReceiver(t, nil)
	r, _ := testRecorder(t, rc.URL, Config{PeerPropagation: true})
	var seen http.Header
	var downstream *Journey
	service := httptest.NewServer(r.Middleware(nil)(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		seen = req.Header.Clone()
		downstream = JourneyFrom(req.Context())
		_, _ = Receive(req.Context(), "receive-order", "body", func(context.Context, string) (int, error) { return 1, nil })
	})))
	defer service.Close()

	j := r.StartJourney(Entity{"order", "ord 7;x"})
	ctx := WithJourney(context.Background(), j)
	parent := j.Record(Published, "send-order", Fields{})
	client := &http.Client{Transport: &Transport{}}
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, service.URL, nil)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if req.Header.Get(JourneyHeader) != "" {
		t.Fatal("the host's request was changed")
	}
	if downstream == nil || downstream.ID() != j.ID() || downstream.Entity() != (Entity{"order", "ord 7;x"}) {
		t.Fatalf("downstream journey %+v", downstream)
	}
	// The peer reads the journey id; the entity id has a space the peer would refuse, so it stays off.
	if seen.Get(EntityHeader) != "order;ord%207%3Bx" || seen.Get(ParentHeader) != parent || seen.Get("x-wayscribe-journey-id") != j.ID() {
		t.Fatalf("headers %v", seen)
	}
	if seen.Get("x-wayscribe-entity-id") != "" {
		t.Fatalf("an entity the peer would refuse was written: %v", seen)
	}
	if err := closeWithin(t, r, 5*time.Second); err != nil {
		t.Fatal(err)
	}
	events := rc.events()
	if len(events) != 2 || events[1]["parentEventId"] != parent || events[1]["journeyId"] != j.ID() {
		t.Fatalf("events %v", events)
	}
}

func TestMiddlewareStartsAJourneyFromTheEntityWhenNoneArrives(t *testing.T) {
	r, _ := testRecorder(t, "http://127.0.0.1:9", Config{Disabled: true})
	var got *Journey
	handler := r.Middleware(func(req *http.Request) (Entity, bool) {
		return Entity{"order", req.URL.Query().Get("id")}, req.URL.Query().Has("id")
	})(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) { got = JourneyFrom(req.Context()) }))
	handler.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/orders?id=ord_5", nil))
	if got == nil || got.Entity().ID != "ord_5" {
		t.Fatalf("journey %+v", got)
	}
	got = nil
	handler.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/orders", nil))
	if got != nil {
		t.Fatal("a journey without entity or context")
	}
}

type carrierCase struct {
	Name     string         `json:"name"`
	Headers  map[string]any `json:"headers"`
	Attrs    map[string]any `json:"attributes"`
	Message  any            `json:"message"`
	Payload  any            `json:"payload"`
	Expected *struct {
		JourneyID string `json:"journeyId"`
		Entity    *struct {
			Type string `json:"type"`
			ID   string `json:"id"`
		} `json:"entity"`
	} `json:"expected"`
}

func checkContext(t *testing.T, name string, c JourneyContext, found bool, want *carrierCase) {
	t.Helper()
	if want.Expected == nil {
		if found {
			t.Fatalf("%s: found %+v", name, c)
		}
		return
	}
	if !found || c.JourneyID != want.Expected.JourneyID {
		t.Fatalf("%s: got %+v %v", name, c, found)
	}
	if (want.Expected.Entity == nil) != (c.Entity == nil) || (c.Entity != nil && *c.Entity != Entity(*want.Expected.Entity)) {
		t.Fatalf("%s: entity %+v", name, c.Entity)
	}
}

// The recorded carriers of services on the peer SDK, shared by every jtrace SDK.
func TestPeerCarriers(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "node", "test", "peer-carriers.json"))
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		HTTP       []carrierCase `json:"http"`
		Attributes []carrierCase `json:"messageAttributes"`
		Envelopes  []carrierCase `json:"envelopes"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	for _, c := range file.HTTP {
		h := http.Header{}
		for name, value := range c.Headers {
			switch v := value.(type) {
			case string:
				h.Add(name, v)
			case []any:
				for _, item := range v {
					h.Add(name, item.(string))
				}
			}
		}
		ctx, found := ExtractHTTPContext(h)
		checkContext(t, c.Name, ctx, found, &c)
	}
	for _, c := range file.Attributes {
		ctx, found := ExtractMessageContext(c.Attrs)
		checkContext(t, c.Name, ctx, found, &c)
	}
	for _, c := range file.Envelopes {
		ctx, found, payload := UnwrapMessage(c.Message)
		checkContext(t, c.Name, ctx, found, &c)
		got, _ := json.Marshal(payload)
		want, _ := json.Marshal(c.Payload)
		if string(got) != string(want) {
			t.Fatalf("%s: payload %s", c.Name, got)
		}
	}
}

func TestOwnCarriersRoundTrip(t *testing.T) {
	r, _ := testRecorder(t, "http://127.0.0.1:9", Config{Disabled: true})
	j := r.StartJourney(Entity{"order", "é\x00;%"})
	attrs := map[string]string{}
	InjectMessageAttributes(attrs, j, false)
	asAny := map[string]any{}
	for k, v := range attrs {
		asAny[k] = map[string]any{"DataType": "String", "StringValue": v}
	}
	c, ok := ExtractMessageContext(asAny)
	if !ok || c.JourneyID != j.ID() || *c.Entity != j.Entity() {
		t.Fatalf("attributes %+v", c)
	}
	wrapped, _ := json.Marshal(WrapMessage(map[string]any{"n": 1}, j))
	var decoded any
	_ = json.Unmarshal(wrapped, &decoded)
	c, ok, payload := UnwrapMessage(decoded)
	if !ok || c.JourneyID != j.ID() || payload.(map[string]any)["n"] != float64(1) {
		t.Fatalf("envelope %+v %v", c, payload)
	}
	h := http.Header{}
	h.Set(JourneyHeader, "jrn_%ZZ")
	h.Set(EntityHeader, "order;1")
	if _, ok := ExtractHTTPContext(h); ok {
		t.Fatal("a bad escape was read")
	}
}
