package invoices

import (
	"context"
	"database/sql"
	"errors"
	"time"
)

var ErrNotFound = errors.New("invoice not found")

type Invoice struct {
	ID          string    `json:"id"`
	AccountID   string    `json:"account_id"`
	AmountCents int64     `json:"amount_cents"`
	IssuedAt    time.Time `json:"issued_at"`
}

type Store struct {
	DB *sql.DB
}

func (s *Store) Get(ctx context.Context, id string) (Invoice, error) {
	var inv Invoice
	err := s.DB.QueryRowContext(ctx,
		`SELECT id, account_id, amount_cents, issued_at FROM invoices WHERE id = $1`, id,
	).Scan(&inv.ID, &inv.AccountID, &inv.AmountCents, &inv.IssuedAt)
	if errors.Is(err, sql.ErrNoRows) {
		return Invoice{}, ErrNotFound
	}
	return inv, err
}

// Delete removes the invoice with this id; ErrNotFound when there is none.
func (s *Store) Delete(ctx context.Context, id string) error {
	res, err := s.DB.ExecContext(ctx, `DELETE FROM invoices WHERE id = $1`, id)
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return ErrNotFound
	}
	return nil
}

func (s *Store) ListByAccount(ctx context.Context, accountID string) ([]Invoice, error) {
	rows, err := s.DB.QueryContext(ctx,
		`SELECT id, account_id, amount_cents, issued_at FROM invoices WHERE account_id = $1 ORDER BY issued_at DESC`,
		accountID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []Invoice
	for rows.Next() {
		var inv Invoice
		if err := rows.Scan(&inv.ID, &inv.AccountID, &inv.AmountCents, &inv.IssuedAt); err != nil {
			return nil, err
		}
		out = append(out, inv)
	}
	return out, rows.Err()
}
