package inventory

import (
	"sync"
	"time"
)

// Hold keeps units aside for an order until it is paid or the hold runs out.
type Hold struct {
	OrderID string
	SKU     string
	Qty     int
	Expires time.Time
}

// Holds is the set of open holds, by order id.
type Holds struct {
	mu      sync.Mutex
	byOrder map[string][]Hold
}

func NewHolds() *Holds {
	return &Holds{byOrder: map[string][]Hold{}}
}

// Release drops an order's holds (it was paid: the units are gone for good).
func (h *Holds) Release(orderID string) []Hold {
	h.mu.Lock()
	defer h.mu.Unlock()
	released := h.byOrder[orderID]
	delete(h.byOrder, orderID)
	return released
}
