package inventory

import (
	"context"
	"time"
)

// ExpireHolds puts the units of every hold that ran out back on the shelf and
// reports how many units came back.
func (s *Service) ExpireHolds() int {
	now := s.now()
	s.holds.mu.Lock()
	defer s.holds.mu.Unlock()
	returned := 0
	for orderID, holds := range s.holds.byOrder {
		kept := holds[:0]
		for _, h := range holds {
			if h.Expires.After(now) {
				kept = append(kept, h)
				continue
			}
			s.stock.mu.Lock()
			s.stock.levels[h.SKU] += h.Qty
			s.stock.mu.Unlock()
			returned += h.Qty
		}
		if len(kept) == 0 {
			delete(s.holds.byOrder, orderID)
		} else {
			s.holds.byOrder[orderID] = kept
		}
	}
	return returned
}

// RunExpiry calls ExpireHolds every interval until ctx is done.
func (s *Service) RunExpiry(ctx context.Context, interval time.Duration, returned func(int)) {
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if n := s.ExpireHolds(); n > 0 {
				returned(n)
			}
		}
	}
}
