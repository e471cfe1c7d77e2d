package main

import (
	"context"
	"flag"
	"log"
	"net/http"
	"os/signal"
	"syscall"
	"time"

	"example.com/stockd/internal/api"
	"example.com/stockd/internal/inventory"
	"example.com/stockd/internal/metrics"
)

func main() {
	addr := flag.String("addr", ":8080", "address to listen on")
	expiry := flag.Duration("expiry-every", 30*time.Second, "how often run-out holds go back on the shelf")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	svc := inventory.NewService(inventory.NewStock(nil), inventory.NewHolds())
	counters := metrics.NewCounters()
	go svc.RunExpiry(ctx, *expiry, func(n int) { counters.Add("expired_units", uint64(n)) })

	srv := &api.Server{Inventory: svc, Counters: counters}
	log.Printf("stockd listening on %s", *addr)
	log.Fatal(http.ListenAndServe(*addr, srv.Routes()))
}
