// Package auth puts the signed-in user on the request context.
package auth

import (
	"context"
	"net/http"
)

type User struct {
	ID        string
	AccountID string
}

type ctxKey struct{}

// UserFrom returns the user the session middleware authenticated.
func UserFrom(ctx context.Context) (User, bool) {
	u, ok := ctx.Value(ctxKey{}).(User)
	return u, ok
}

// Middleware resolves the session cookie to a user, or answers 401.
func Middleware(lookup func(token string) (User, bool), next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, err := r.Cookie("session")
		if err != nil {
			http.Error(w, "unauthorised", http.StatusUnauthorized)
			return
		}
		u, ok := lookup(c.Value)
		if !ok {
			http.Error(w, "unauthorised", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxKey{}, u)))
	})
}
