package catalog

import (
	"sort"
	"time"
)

// Batch is one delivery of a perishable SKU with its best-before date. The
// warehouse team pulls expired batches off the shelf by hand; nothing here
// holds or moves stock.
type Batch struct {
	SKU     string
	Qty     int
	Expires time.Time
}

// Expired lists the batches past their date, oldest first.
func Expired(batches []Batch, now time.Time) []Batch {
	var out []Batch
	for _, b := range batches {
		if !b.Expires.After(now) {
			out = append(out, b)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Expires.Before(out[j].Expires) })
	return out
}
