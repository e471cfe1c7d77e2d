package auth

import "database/sql"

// SessionStore maps session tokens to users.
type SessionStore struct {
	db *sql.DB
}

func NewSessionStore(db *sql.DB) *SessionStore {
	return &SessionStore{db: db}
}

// Lookup finds the user of an unexpired session.
func (s *SessionStore) Lookup(token string) (User, bool) {
	var u User
	err := s.db.QueryRow(
		`SELECT u.id, u.account_id FROM sessions s JOIN users u ON u.id = s.user_id
		 WHERE s.token = $1 AND s.expires_at > now()`, token,
	).Scan(&u.ID, &u.AccountID)
	return u, err == nil
}
