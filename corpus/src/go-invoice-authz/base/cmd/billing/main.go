package main

import (
	"database/sql"
	"log/slog"
	"net/http"
	"os"

	"example.com/billing/internal/auth"
	"example.com/billing/internal/invoices"
)

func main() {
	db, err := sql.Open("postgres", os.Getenv("DATABASE_URL"))
	if err != nil {
		slog.Error("open database", "err", err)
		os.Exit(1)
	}
	sessions := auth.NewSessionStore(db)
	mux := http.NewServeMux()
	h := &invoices.Handler{Store: &invoices.Store{DB: db}, Log: slog.Default()}
	h.Routes(mux)
	slog.Error("serve", "err", http.ListenAndServe(":8080", auth.Middleware(sessions.Lookup, mux)))
}
