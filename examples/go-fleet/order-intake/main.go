// The Go part of a mixed fleet: order-intake takes an order over HTTP (jtrace's middleware starts
// the journey), normalizes it, and hands it to the Node pricing service with the journey in the
// request headers (jtrace.Transport). Run: JTRACE_URL=... JTRACE_API_KEY=... PRICING_URL=...
// (prints its port, stops on SIGTERM after sending what its recorder holds).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	jtrace "github.com/jtrace/jtrace-go"
)

type Customer struct {
	Name  string `json:"name"`
	Email string `json:"email"`
	Phone string `json:"phone,omitempty"`
}

type Item struct {
	SKU      string `json:"sku"`
	Quantity int    `json:"quantity"`
}

type Order struct {
	OrderID  string   `json:"orderId"`
	Customer Customer `json:"customer"`
	Items    []Item   `json:"items"`
}

// normalize is the mapping under test: it rebuilds the customer and forgets the phone number,
// which forensics shows as lost here, before the order ever leaves this service.
func normalize(_ context.Context, o Order) (Order, error) {
	o.Customer = Customer{Name: o.Customer.Name, Email: o.Customer.Email}
	return o, nil
}

func main() {
	recorder := jtrace.New(jtrace.Config{
		Endpoint: os.Getenv("JTRACE_URL"), APIKey: os.Getenv("JTRACE_API_KEY"),
		ServiceName: "order-intake", Environment: "production",
	})
	pricing := &http.Client{Transport: &jtrace.Transport{}, Timeout: 10 * time.Second}

	orders := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		var order Order
		if err := json.NewDecoder(r.Body).Decode(&order); err != nil {
			http.Error(w, "bad order", http.StatusBadRequest)
			return
		}
		jtrace.JourneyFrom(ctx).Label("Order " + order.OrderID)
		order, _ = jtrace.Receive(ctx, "receive-order", order, func(_ context.Context, o Order) (Order, error) { return o, nil })
		order, _ = jtrace.Transform(ctx, "normalize-order", order, normalize)
		answer, err := jtrace.Deliver(ctx, "send-to-pricing", order, func(ctx context.Context, o Order) (map[string]any, error) {
			body, _ := json.Marshal(o)
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, os.Getenv("PRICING_URL")+"/price", bytes.NewReader(body))
			req.Header.Set("content-type", "application/json")
			resp, err := pricing.Do(req)
			if err != nil {
				return nil, err
			}
			defer resp.Body.Close()
			var out map[string]any
			if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
				return nil, err
			}
			return out, nil
		})
		if err != nil {
			http.Error(w, "pricing failed", http.StatusBadGateway)
			return
		}
		w.Header().Set("content-type", "application/json")
		w.WriteHeader(http.StatusAccepted)
		_ = json.NewEncoder(w).Encode(answer)
	})
	// The order id names the journey's entity; a request carrying a journey continues it instead.
	handler := recorder.Middleware(func(r *http.Request) (jtrace.Entity, bool) {
		id := r.URL.Query().Get("orderId")
		return jtrace.Entity{Type: "order", ID: id}, id != ""
	})(orders)

	listener, err := net.Listen("tcp", "127.0.0.1:"+os.Getenv("PORT"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	server := &http.Server{Handler: handler}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, os.Interrupt)
	go func() {
		<-stop
		_ = server.Shutdown(context.Background())
	}()
	fmt.Println(listener.Addr().(*net.TCPAddr).Port)
	_ = server.Serve(listener)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := recorder.Close(ctx); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
