package inventory

import "sync"

// Stock is the number of units on the shelf per SKU, not counting held units.
type Stock struct {
	mu     sync.Mutex
	levels map[string]int
}

func NewStock(levels map[string]int) *Stock {
	if levels == nil {
		levels = map[string]int{}
	}
	return &Stock{levels: levels}
}

// Level reports the free units of one SKU.
func (s *Stock) Level(sku string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.levels[sku]
}

// Receive adds delivered units to the shelf.
func (s *Stock) Receive(sku string, qty int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.levels[sku] += qty
}
