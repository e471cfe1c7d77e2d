package invoices

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"

	"example.com/billing/internal/auth"
)

type Handler struct {
	Store *Store
	Log   *slog.Logger
}

func (h *Handler) Routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /invoices/{id}", h.Get)
	mux.HandleFunc("DELETE /invoices/{id}", h.Delete)
}

func (h *Handler) Get(w http.ResponseWriter, r *http.Request) {
	user, _ := auth.UserFrom(r.Context())
	inv, err := h.Store.Get(r.Context(), r.PathValue("id"))
	if errors.Is(err, ErrNotFound) || (err == nil && inv.AccountID != user.AccountID) {
		http.NotFound(w, r)
		return
	}
	if err != nil {
		h.Log.Error("get invoice", "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(inv)
}

// Delete removes one of the user's invoices in a single statement; a missing
// invoice answers 404.
func (h *Handler) Delete(w http.ResponseWriter, r *http.Request) {
	err := h.Store.Delete(r.Context(), r.PathValue("id"))
	if errors.Is(err, ErrNotFound) {
		http.NotFound(w, r)
		return
	}
	if err != nil {
		h.Log.Error("delete invoice", "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
