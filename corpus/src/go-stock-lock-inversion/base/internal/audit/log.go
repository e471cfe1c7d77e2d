package audit

import (
	"encoding/json"
	"io"
	"sync"
	"time"
)

// Log appends one JSON line per stock movement, for the finance team.
type Log struct {
	mu  sync.Mutex
	out io.Writer
	buf []Entry
}

type Entry struct {
	At      time.Time `json:"at"`
	Action  string    `json:"action"`
	OrderID string    `json:"order_id,omitempty"`
	SKU     string    `json:"sku"`
	Qty     int       `json:"qty"`
}

func New(out io.Writer) *Log {
	return &Log{out: out}
}

// Record queues an entry; Release writes the queue out.
func (l *Log) Record(e Entry) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf = append(l.buf, e)
}

// Release flushes queued entries to the writer and forgets them.
func (l *Log) Release() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	enc := json.NewEncoder(l.out)
	for _, e := range l.buf {
		if err := enc.Encode(e); err != nil {
			return err
		}
	}
	l.buf = l.buf[:0]
	return nil
}
