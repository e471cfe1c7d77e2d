package inventory

import (
	"errors"
	"fmt"
	"time"
)

// HoldFor is how long a customer has to pay before held units go back on sale.
const HoldFor = 15 * time.Minute

var ErrInsufficient = errors.New("not enough stock")

// Service ties the shelf and the holds together.
//
// Reserve is called for every basket checkout, so it must not block for long.
type Service struct {
	stock *Stock
	holds *Holds
	now   func() time.Time
}

func NewService(stock *Stock, holds *Holds) *Service {
	return &Service{stock: stock, holds: holds, now: time.Now}
}

// Reserve moves qty units of sku from the shelf into a hold for the order.
func (s *Service) Reserve(orderID, sku string, qty int) (Hold, error) {
	if qty <= 0 {
		return Hold{}, fmt.Errorf("reserve %s: quantity must be positive, got %d", sku, qty)
	}
	s.stock.mu.Lock()
	defer s.stock.mu.Unlock()
	if s.stock.levels[sku] < qty {
		return Hold{}, fmt.Errorf("reserve %d of %s: %w (%d free)", qty, sku, ErrInsufficient, s.stock.levels[sku])
	}
	s.holds.mu.Lock()
	defer s.holds.mu.Unlock()
	hold := Hold{OrderID: orderID, SKU: sku, Qty: qty, Expires: s.now().Add(HoldFor)}
	s.stock.levels[sku] -= qty
	s.holds.byOrder[orderID] = append(s.holds.byOrder[orderID], hold)
	return hold, nil
}

// Paid settles an order: its held units leave the warehouse.
func (s *Service) Paid(orderID string) int {
	n := 0
	for _, h := range s.holds.Release(orderID) {
		n += h.Qty
	}
	return n
}
