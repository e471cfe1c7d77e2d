package main

import (
	"flag"
	"log"
	"net/http"

	"example.com/stockd/internal/api"
	"example.com/stockd/internal/inventory"
	"example.com/stockd/internal/metrics"
)

func main() {
	addr := flag.String("addr", ":8080", "address to listen on")
	flag.Parse()

	svc := inventory.NewService(inventory.NewStock(nil), inventory.NewHolds())
	srv := &api.Server{Inventory: svc, Counters: metrics.NewCounters()}
	log.Printf("stockd listening on %s", *addr)
	log.Fatal(http.ListenAndServe(*addr, srv.Routes()))
}
