package execx

import (
	"bytes"
	"sync"
)

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// notifyWriter closes first when the first bytes arrive.
type notifyWriter struct {
	once  sync.Once
	first chan struct{}
}

func (n *notifyWriter) Write(p []byte) (int, error) {
	n.once.Do(func() { close(n.first) })
	return len(p), nil
}
