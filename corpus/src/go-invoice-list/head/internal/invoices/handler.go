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
	mux.HandleFunc("GET /invoices", h.List)
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

// List answers the invoices of the signed-in user's account, newest first.
func (h *Handler) List(w http.ResponseWriter, r *http.Request) {
	user, ok := auth.UserFrom(r.Context())
	if !ok {
		http.Error(w, "unauthorised", http.StatusUnauthorized)
		return
	}
	list, err := h.Store.ListByAccount(r.Context(), user.AccountID)
	if err != nil {
		h.Log.Error("list invoices", "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	if list == nil {
		list = []Invoice{}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(list)
}

// Delete removes one of the user's invoices. Another account's invoice answers
// 404, as if it did not exist, so ids cannot be probed.
func (h *Handler) Delete(w http.ResponseWriter, r *http.Request) {
	user, _ := auth.UserFrom(r.Context())
	id := r.PathValue("id")
	inv, err := h.Store.Get(r.Context(), id)
	if errors.Is(err, ErrNotFound) || (err == nil && inv.AccountID != user.AccountID) {
		http.NotFound(w, r)
		return
	}
	if err != nil {
		h.Log.Error("get invoice", "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	if err := h.Store.Delete(r.Context(), id); err != nil {
		h.Log.Error("delete invoice", "err", err)
		http.Error(w, "internal error", http.StatusInternalServerError)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}
