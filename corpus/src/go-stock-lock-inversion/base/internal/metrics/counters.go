package metrics

import (
	"fmt"
	"io"
	"sort"
	"sync"
)

// Counters are monotonically increasing named counts, written in the Prometheus
// text format. Each has its own lock; nothing here touches inventory state.
type Counters struct {
	mu     sync.Mutex
	values map[string]uint64
}

func NewCounters() *Counters {
	return &Counters{values: map[string]uint64{}}
}

func (c *Counters) Add(name string, n uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.values[name] += n
}

// WriteTo writes every counter, sorted by name so scrapes diff cleanly.
func (c *Counters) WriteTo(w io.Writer) (int64, error) {
	c.mu.Lock()
	names := make([]string, 0, len(c.values))
	for name := range c.values {
		names = append(names, name)
	}
	snapshot := make(map[string]uint64, len(c.values))
	for k, v := range c.values {
		snapshot[k] = v
	}
	c.mu.Unlock()
	sort.Strings(names)
	var total int64
	for _, name := range names {
		n, err := fmt.Fprintf(w, "stockd_%s_total %d\n", name, snapshot[name])
		total += int64(n)
		if err != nil {
			return total, err
		}
	}
	return total, nil
}
