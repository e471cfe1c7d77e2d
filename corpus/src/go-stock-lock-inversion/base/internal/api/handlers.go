package api

import (
	"encoding/json"
	"errors"
	"net/http"

	"example.com/stockd/internal/inventory"
	"example.com/stockd/internal/metrics"
)

type Server struct {
	Inventory *inventory.Service
	Counters  *metrics.Counters
}

type reserveRequest struct {
	OrderID string `json:"order_id"`
	SKU     string `json:"sku"`
	Qty     int    `json:"qty"`
}

func (s *Server) Routes() *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /holds", s.reserve)
	mux.HandleFunc("POST /orders/{id}/paid", s.paid)
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, _ *http.Request) { s.Counters.WriteTo(w) })
	return mux
}

func (s *Server) reserve(w http.ResponseWriter, r *http.Request) {
	var req reserveRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "body must be JSON with order_id, sku and qty", http.StatusBadRequest)
		return
	}
	hold, err := s.Inventory.Reserve(req.OrderID, req.SKU, req.Qty)
	switch {
	case errors.Is(err, inventory.ErrInsufficient):
		s.Counters.Add("reserve_refused", 1)
		http.Error(w, err.Error(), http.StatusConflict)
		return
	case err != nil:
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.Counters.Add("reserved_units", uint64(hold.Qty))
	w.WriteHeader(http.StatusCreated)
	json.NewEncoder(w).Encode(hold)
}

func (s *Server) paid(w http.ResponseWriter, r *http.Request) {
	n := s.Inventory.Paid(r.PathValue("id"))
	s.Counters.Add("sold_units", uint64(n))
	w.WriteHeader(http.StatusNoContent)
}
