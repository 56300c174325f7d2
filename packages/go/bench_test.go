package jtrace

import (
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"
)

// Capture cost of a wrapped call (npm run bench:sdk runs these with -benchmem): the Node and
// Python benches' 1 KB order in and out, as a struct (the usual Go host value) and as a map.
// Sending is kept out: the endpoint refuses connections and the breaker stays open after the
// first failure, so events only queue.

type benchAddress struct {
	Line1    string `json:"line1"`
	City     string `json:"city"`
	Postcode string `json:"postcode"`
}

type benchCustomer struct {
	Name    string       `json:"name"`
	Email   string       `json:"email"`
	Phone   string       `json:"phone"`
	Address benchAddress `json:"address"`
}

type benchItem struct {
	SKU       string `json:"sku"`
	Title     string `json:"title"`
	Quantity  int    `json:"quantity"`
	UnitPrice int    `json:"unitPrice"`
}

type benchOrder struct {
	OrderID   string        `json:"orderId"`
	Customer  benchCustomer `json:"customer"`
	Items     []benchItem   `json:"items"`
	Notes     string        `json:"notes"`
	CreatedAt string        `json:"createdAt"`
	Status    string        `json:"status,omitempty"`
}

func benchOrderOf(seed int) benchOrder {
	o := benchOrder{OrderID: fmt.Sprintf("ord_%d", seed),
		Customer: benchCustomer{Name: "Ada Lovelace", Email: "ada@example.com", Phone: "+44 20 7946 0000",
			Address: benchAddress{Line1: "12 Analytical Row", City: "London", Postcode: "N1 9GU"}},
		Notes: strings.Repeat("Leave at the door; ring twice. ", 6), CreatedAt: "2026-11-23T10:00:00.000Z"}
	for i := 0; i < 8; i++ {
		o.Items = append(o.Items, benchItem{fmt.Sprintf("SKU-%d", 1000+i), fmt.Sprintf("Item number %d with a name", i), i + 1, 1250 + i})
	}
	return o
}

func benchMapOf(o benchOrder) map[string]any {
	items := make([]any, len(o.Items))
	for i, it := range o.Items {
		items[i] = map[string]any{"sku": it.SKU, "title": it.Title, "quantity": it.Quantity, "unitPrice": it.UnitPrice}
	}
	m := map[string]any{"orderId": o.OrderID, "items": items, "notes": o.Notes, "createdAt": o.CreatedAt,
		"customer": map[string]any{"name": o.Customer.Name, "email": o.Customer.Email, "phone": o.Customer.Phone,
			"address": map[string]any{"line1": o.Customer.Address.Line1, "city": o.Customer.Address.City, "postcode": o.Customer.Address.Postcode}}}
	if o.Status != "" {
		m["status"] = o.Status
	}
	return m
}

func benchRecorder(b *testing.B) (context.Context, func()) {
	listener, _ := net.Listen("tcp", "127.0.0.1:0")
	endpoint := "http://" + listener.Addr().String()
	listener.Close()
	r := New(Config{Endpoint: endpoint, APIKey: "k", ServiceName: "bench", Environment: "production",
		MaxQueueSize: 10000000, MaxQueueBytes: 4 << 30, BreakerThreshold: 1, BreakerCooldown: time.Hour, OnDiagnostic: func(Diagnostic) {}})
	ctx := WithJourney(context.Background(), r.StartJourney(Entity{"order", "ord_1"}))
	return ctx, func() {
		closing, cancel := context.WithTimeout(context.Background(), 0)
		defer cancel()
		_ = r.Close(closing)
	}
}

func BenchmarkCaptureBare(b *testing.B) {
	in, out := benchOrderOf(1), benchOrderOf(2)
	out.Status = "normalized"
	bare := func(_ context.Context, o benchOrder) (benchOrder, error) {
		if o.OrderID == "" {
			return o, nil
		}
		return out, nil
	}
	b.ReportAllocs()
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		_, _ = bare(ctx, in)
	}
}

func BenchmarkCaptureStruct(b *testing.B) {
	in, out := benchOrderOf(1), benchOrderOf(2)
	out.Status = "normalized"
	bare := func(_ context.Context, o benchOrder) (benchOrder, error) {
		if o.OrderID == "" {
			return o, nil
		}
		return out, nil
	}
	ctx, done := benchRecorder(b)
	defer done()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_, _ = Transform(ctx, "normalize-order", in, bare)
	}
}

func BenchmarkCaptureMap(b *testing.B) {
	in := benchMapOf(benchOrderOf(1))
	o := benchOrderOf(2)
	o.Status = "normalized"
	out := benchMapOf(o)
	bare := func(_ context.Context, m map[string]any) (map[string]any, error) {
		if m["orderId"] == "" {
			return m, nil
		}
		return out, nil
	}
	ctx, done := benchRecorder(b)
	defer done()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_, _ = Transform(ctx, "normalize-order", in, bare)
	}
}
